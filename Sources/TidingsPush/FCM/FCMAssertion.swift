import Foundation
import TidingsCrypto
import TidingsModel

/// The signed JWT a service account trades for an access token (RFC 7523 "JWT bearer" grant):
/// `{"alg":"RS256","typ":"JWT","kid":KEY_ID}.{"iss","scope","aud","iat","exp"}` signed with RS256.
public enum FCMAssertion {
    /// The OAuth2 scope that allows sending through FCM.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long an assertion is valid; Google accepts at most one hour.
    public static let lifetime: TimeInterval = 3600

    /// A signed assertion for `account`, issued at `issuedAt` (whole seconds), for audience `audience`.
    public static func make(
        for account: FCMServiceAccount, audience: String, issuedAt: Date
    ) throws(FCMCredentialError) -> String {
        let seconds = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT"]
        if let keyID = account.privateKeyID { header["kid"] = .string(keyID) }
        let claims: JSONValue = [
            "iss": .string(account.clientEmail), "scope": .string(scope), "aud": .string(audience),
            "iat": .integer(seconds), "exp": .integer(seconds + Int64(lifetime)),
        ]
        let signingInput: String
        do {
            signingInput =
                Base64URL.encode(try JSONValue.object(header).serialized(sortedKeys: true)) + "."
                + Base64URL.encode(try claims.serialized(sortedKeys: true))
        } catch {
            // Only strings and integers: the writer cannot fail on them.
            throw FCMCredentialError(.signingFailed, "cannot encode the assertion: \(error)")
        }
        let signature = try FCMCredentialError.mapping { () throws(KeyError) in
            try account.key.sign(Array(signingInput.utf8))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
