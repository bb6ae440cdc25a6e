import Foundation
import TidingsModel

/// What a verified identity token says: the user it vouches for, and when and for whom it is valid.
public struct JWTClaims: Sendable, Equatable {
    /// `sub`: the app's own user id.
    public var subject: String
    /// `aud`: the app ids the token is for (a single string becomes one element).
    public var audiences: [String]
    /// `iat`.
    public var issuedAt: Date
    /// `exp`.
    public var expiresAt: Date
    /// `nbf`, when present.
    public var notBefore: Date?
    /// The ``JWTVerifier/Key/id`` of the configured key whose signature verified (the header's `kid`, or the
    /// key found by trying each one when the header has none).
    public var keyID: String
    /// The header's `alg`.
    public var algorithm: JWTAlgorithm
    /// Every claim, registered and private, as sent.
    public var all: [String: JSONValue]

    public init(
        subject: String, audiences: [String], issuedAt: Date, expiresAt: Date, notBefore: Date? = nil,
        keyID: String, algorithm: JWTAlgorithm, all: [String: JSONValue]
    ) {
        self.subject = subject
        self.audiences = audiences
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.keyID = keyID
        self.algorithm = algorithm
        self.all = all
    }

    /// The claim `name` (`claims["email"]`), registered or private.
    public subscript(name: String) -> JSONValue? { all[name] }
}
