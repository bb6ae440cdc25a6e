import Foundation
import TidingsCrypto
import TidingsModel

/// Verifies APNs provider tokens (ES256 JWTs) the way APNs does: signature, `alg`, `kid`, `iss` and `iat`.
///
/// ```swift
/// let verifier = ES256Verifier(keys: [.init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: key.publicKey())])
/// let claims = try verifier.verify(token, now: Date())
/// ```
public struct ES256Verifier: Sendable {
    /// A key tokens may be signed with, and the team that owns it.
    public struct TrustedKey: Sendable {
        public var keyID: String
        public var teamID: String
        /// The public key (a private key works too: only its public half is used).
        public var publicKey: ES256Key

        public init(keyID: String, teamID: String, publicKey: ES256Key) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKey = publicKey
        }
    }

    /// What a valid token says.
    public struct Claims: Sendable, Equatable {
        public var keyID: String
        public var teamID: String
        public var issuedAt: Date
    }

    /// Why a token was refused.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: String, Sendable {
            /// Not three base64url segments of JSON objects.
            case malformed
            /// `alg` is not `ES256`.
            case unsupportedAlgorithm = "unsupported_algorithm"
            /// `kid` names no trusted key.
            case unknownKey = "unknown_key"
            /// The signature does not verify.
            case badSignature = "bad_signature"
            /// `iss` is not the key's team.
            case wrongIssuer = "wrong_issuer"
            /// `iat` is older than ``ES256Verifier/maximumAge``.
            case expired
            /// `iat` is later than now plus ``ES256Verifier/allowedSkew``.
            case issuedInFuture = "issued_in_future"
        }

        public var code: Code
        public var message: String

        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { message }
    }

    /// APNs refuses tokens older than one hour.
    public var maximumAge: Duration = .seconds(3600)
    /// How far in the future `iat` may be (clocks differ).
    public var allowedSkew: Duration = .seconds(60)
    private let keys: [String: TrustedKey]

    public init(keys: [TrustedKey]) {
        self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The claims of `token` when it is valid at `now`.
    /// - Throws: ``Failure`` naming the first check that failed.
    public func verify(_ token: String, now: Date) throws(Failure) -> Claims {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerBytes = Base64URL.decode(segments[0]),
            let claimBytes = Base64URL.decode(segments[1]), let signature = Base64URL.decode(segments[2]),
            let header = (try? JSONValue.parse(headerBytes))?.objectValue,
            let claims = (try? JSONValue.parse(claimBytes))?.objectValue
        else {
            throw Failure(.malformed, "the token is not a JWS of three base64url segments with JSON objects")
        }
        guard header["alg"]?.stringValue == "ES256" else {
            throw Failure(.unsupportedAlgorithm, "the token's alg must be ES256")
        }
        guard let keyID = header["kid"]?.stringValue, let trusted = keys[keyID] else {
            throw Failure(.unknownKey, "the token's kid names no known key")
        }
        let signingInput = Array(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        guard trusted.publicKey.verify(signature, for: signingInput) else {
            throw Failure(.badSignature, "the token's signature does not verify with key \(keyID)")
        }
        guard claims["iss"]?.stringValue == trusted.teamID else {
            throw Failure(.wrongIssuer, "the token's iss is not the team of key \(keyID)")
        }
        guard case .integer(let seconds)? = claims["iat"] else {
            throw Failure(.malformed, "the token has no integer iat claim")
        }
        let issuedAt = Date(timeIntervalSince1970: Double(seconds))
        let age = now.timeIntervalSince(issuedAt)
        guard age <= maximumAge.seconds else {
            throw Failure(.expired, "the token is older than \(Int(maximumAge.seconds)) seconds")
        }
        guard -age <= allowedSkew.seconds else {
            throw Failure(.issuedInFuture, "the token's iat is more than \(Int(allowedSkew.seconds)) seconds ahead")
        }
        return Claims(keyID: keyID, teamID: trusted.teamID, issuedAt: issuedAt)
    }
}
