import Foundation
import TidingsModel

/// Signs identity tokens the way an app's backend does: compact JWS JWTs with ES256 or RS256 that
/// ``JWTVerifier`` accepts. Tidings itself only verifies; this is for tests, `tidings demo` (which plays the
/// app's backend) and Swift backends.
///
/// ```swift
/// let signer = JWTSigner(key: try ES256Key(contentsOfFile: "identity-es256.pem"), keyID: "2026-12")
/// let token = try signer.sign(subject: "user-42", audience: "app_7Qx2", issuedAt: Date(), lifetime: .seconds(3600))
/// // header {"alg":"ES256","kid":"2026-12","typ":"JWT"}, claims {"aud":"app_7Qx2","exp":...,"iat":...,"sub":"user-42"}
/// ```
public struct JWTSigner: Sendable {
    /// The header's `alg`, fixed by the key.
    public let algorithm: JWTAlgorithm
    /// The header's `kid`, when set.
    public let keyID: String?
    private let key: PrivateKey

    private enum PrivateKey: Sendable {
        case es256(ES256Key)
        case rs256(RS256Key)
    }

    /// A signer with a P-256 private key.
    public init(key: ES256Key, keyID: String? = nil) {
        algorithm = .es256
        self.keyID = keyID
        self.key = .es256(key)
    }

    /// A signer with an RSA private key (at least 2048 bits, which ``RS256Key`` enforces).
    public init(key: RS256Key, keyID: String? = nil) {
        algorithm = .rs256
        self.keyID = keyID
        self.key = .rs256(key)
    }

    /// A token for `subject` on app `audience`, issued at `issuedAt` (whole seconds) and expiring `lifetime`
    /// later, with any `extraClaims` besides (the named claims take precedence over them).
    /// - Throws: ``KeyError`` `signing_failed` for a public key, or a non-finite number in `extraClaims`.
    public func sign(
        subject: String, audience: String, issuedAt: Date, lifetime: Duration = .seconds(3600),
        extraClaims: [String: JSONValue] = [:]
    ) throws(KeyError) -> String {
        let issued = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims = extraClaims
        claims["sub"] = .string(subject)
        claims["aud"] = .string(audience)
        claims["iat"] = .integer(issued)
        claims["exp"] = .integer(issued + lifetime.components.seconds)
        return try sign(claims)
    }

    /// A token carrying exactly `claims`, with the header `{"alg":…,"kid":…,"typ":"JWT"}`.
    /// - Throws: ``KeyError`` `signing_failed` for a public key, or a non-finite number in `claims`.
    public func sign(_ claims: [String: JSONValue]) throws(KeyError) -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm.rawValue), "typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        let signingInput: String
        do {
            signingInput =
                Base64URL.encode(try JSONValue.object(header).serialized(sortedKeys: true)) + "."
                + Base64URL.encode(try JSONValue.object(claims).serialized(sortedKeys: true))
        } catch {
            throw KeyError(.signingFailed, "the claims cannot be written as JSON: \(error)")
        }
        let signature: [UInt8]
        switch key {
        case .es256(let key): signature = try key.sign(Array(signingInput.utf8))
        case .rs256(let key): signature = try key.sign(Array(signingInput.utf8))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
