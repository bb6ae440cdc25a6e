import Foundation
import TidingsModel

/// The claim checks of ``JWTVerifier``, run once the signature has verified.
extension JWTClaims {
    /// The limits a claims set is checked against.
    struct Validation {
        var audience: String
        var now: Date
        var maximumLifetime: Duration
        var clockSkew: Duration
    }

    /// The claims of `object` when they pass `validation`; in order: `sub`, `aud`, `exp`, `iat`, `nbf` present
    /// and well-typed, then not expired, `iat` and `nbf` not ahead of now, and the lifetime within bounds.
    init(
        validating object: [String: JSONValue], keyID: String, algorithm: JWTAlgorithm, _ validation: Validation
    ) throws(JWTError) {
        guard case .string(let subject)? = object["sub"], !subject.isEmpty else {
            throw JWTError(.missingClaim, "the claims have no sub (a non-empty string naming the user)")
        }
        let audiences: [String]
        switch object["aud"] {
        case nil:
            throw JWTError(.missingClaim, "the claims have no aud (the Tidings app id)")
        case .string(let audience)?:
            audiences = [audience]
        case .array(let elements)?:
            audiences = elements.compactMap(\.stringValue)
            guard audiences.count == elements.count else {
                throw JWTError(.wrongAudience, "aud must be a string or an array of strings")
            }
        case _?:
            throw JWTError(.wrongAudience, "aud must be a string or an array of strings")
        }
        guard audiences.contains(validation.audience) else {
            throw JWTError(.wrongAudience, "the token is for another audience: aud does not contain this app's id")
        }
        guard let expiresAt = Self.numericDate(object["exp"]) else {
            throw JWTError(.missingClaim, "the claims have no exp (a number of seconds since 1970)")
        }
        guard let issuedAt = Self.numericDate(object["iat"]) else {
            throw JWTError(.missingClaim, "the claims have no iat (a number of seconds since 1970)")
        }
        var notBefore: Date?
        if let value = object["nbf"] {
            guard let date = Self.numericDate(value) else {
                throw JWTError(.malformed, "nbf must be a number of seconds since 1970")
            }
            notBefore = date
        }

        let now = validation.now.timeIntervalSince1970
        let skew = validation.clockSkew.seconds
        guard expiresAt.timeIntervalSince1970 + skew > now else {
            throw JWTError(.expired, "the token expired: exp is in the past (beyond \(Self.format(skew)) s of skew)")
        }
        guard issuedAt.timeIntervalSince1970 <= now + skew else {
            throw JWTError(
                .notYetValid, "iat is in the future (beyond \(Self.format(skew)) s of skew): check the signer's clock")
        }
        if let notBefore, notBefore.timeIntervalSince1970 > now + skew {
            throw JWTError(.notYetValid, "nbf is in the future (beyond \(Self.format(skew)) s of skew)")
        }
        let lifetime = expiresAt.timeIntervalSince1970 - issuedAt.timeIntervalSince1970
        guard lifetime <= validation.maximumLifetime.seconds else {
            throw JWTError(
                .lifetimeTooLong,
                "exp - iat is longer than the maximum lifetime of \(Self.format(validation.maximumLifetime.seconds)) s")
        }
        self.init(
            subject: subject, audiences: audiences, issuedAt: issuedAt, expiresAt: expiresAt, notBefore: notBefore,
            keyID: keyID, algorithm: algorithm, all: object)
    }

    /// A NumericDate (RFC 7519 §2): an integer or fractional number of seconds since 1970; nil for anything else.
    private static func numericDate(_ value: JSONValue?) -> Date? {
        switch value {
        case .integer(let seconds)?: Date(timeIntervalSince1970: Double(seconds))
        case .double(let seconds)? where seconds.isFinite: Date(timeIntervalSince1970: seconds)
        default: nil
        }
    }

    /// Whole seconds without a fraction, others as they are.
    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
