import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Operators' TOTP second factors (RFC 6238): enrolment, codes, recovery codes (docs/security.md,
/// "Two-factor sign-in"). The secret is sealed by the store and shown only while enrolling.
struct OperatorSecondFactors: Sendable {
    /// What enrolment shows once: the secret for manual entry, the `otpauth://` URI, and its QR code.
    struct Enrolment: Sendable {
        var secret: String
        var uri: String
        var qrSVG: String
    }

    /// Recovery codes made at confirmation and on regeneration.
    static let recoveryCodeCount = 10
    /// The issuer authenticator apps show.
    static let issuer = "Tidings"

    let store: any Store
    let clock: any TidingsClock

    var unixSeconds: Int64 { Int64(clock.now.timeIntervalSince1970.rounded(.down)) }

    /// Starts (or restarts) enrolment with a new random 20-byte secret.
    /// - Throws: 409 `two_factor_enabled` when it is on already; 409 `secrets_key_required` when the store
    ///   cannot seal the secret.
    func begin(operatorName: String) throws -> Enrolment {
        let secret = SecureRandom.bytes(20)
        do {
            try store.startSecondFactorEnrolment(
                OperatorSecondFactor(
                    operatorName: operatorName, secret: secret, recoverySalt: SecureRandom.bytes(16),
                    createdAt: clock.now.millisecondsSince1970))
        } catch let error as StoreError where error.code == .conflict {
            throw HTTPError(
                status: 409, code: "two_factor_enabled",
                message: "two-factor sign-in is on already; turn it off (with your password and a code) to enrol again")
        } catch let error as StoreError where error.code == .secretsKeyMissing {
            throw HTTPError(
                status: 409, code: "secrets_key_required",
                message:
                    "a TOTP secret is stored only encrypted: start tidingsd with --secrets-key-file (docs/security.md)")
        }
        let text = Base32.encode(secret)
        let uri = Self.uri(operatorName: operatorName, secret: text)
        return Enrolment(secret: text, uri: uri, qrSVG: try QRCode(encoding: uri).svg)
    }

    /// `otpauth://totp/Tidings:<operator>?secret=…&issuer=Tidings` (the Key Uri Format authenticator apps read).
    static func uri(operatorName: String, secret: String) -> String {
        // Operator names are letters, digits and ._@-; the issuer's colon stays literal, as apps expect.
        let name =
            operatorName.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "._-")))
            ?? ""
        return "otpauth://totp/\(issuer):\(name)?secret=\(secret)&issuer=\(issuer)&algorithm=SHA1&digits=6&period=30"
    }

    /// Confirms enrolment with a current code and answers the recovery codes, the only time they are shown.
    /// - Throws: 409 `no_enrolment` when none is under way; 401 `invalid_code` for a wrong code.
    func confirm(operatorName: String, code: String) throws -> [String] {
        guard let factor = try store.secondFactor(operatorName: operatorName), !factor.isEnabled else {
            throw HTTPError(
                status: 409, code: "no_enrolment",
                message: "no two-factor enrolment is under way; start one with POST /v1/session/two-factor/enrolment")
        }
        guard let step = TOTP(secret: factor.secret).matchingStep(of: Self.digits(code), at: unixSeconds) else {
            throw Self.invalidCode()
        }
        let codes = Self.makeRecoveryCodes()
        guard
            try store.confirmSecondFactor(
                operatorName: operatorName, step: step, at: clock.now.millisecondsSince1970,
                recoveryCodeDigests: codes.map { Self.digest(of: $0, salt: factor.recoverySalt) })
        else { throw Self.invalidCode() }
        return codes
    }

    /// Whether `code` is a current TOTP code not used before, or one of the operator's recovery codes (used up
    /// by this call). False for an operator without a confirmed second factor.
    func verify(operatorName: String, code: String) throws -> Bool {
        guard let factor = try store.secondFactor(operatorName: operatorName), factor.isEnabled else { return false }
        let digits = Self.digits(code)
        if digits.count == 6, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
            guard let step = TOTP(secret: factor.secret).matchingStep(of: digits, at: unixSeconds) else {
                return false
            }
            // Atomic: of two requests (or instances) presenting one code, one wins.
            return try store.useSecondFactorStep(operatorName: operatorName, step: step)
        }
        return try store.useRecoveryCode(
            operatorName: operatorName, digest: Self.digest(of: code, salt: factor.recoverySalt))
    }

    /// New recovery codes replacing every old one.
    func regenerateRecoveryCodes(operatorName: String) throws -> [String] {
        guard let factor = try store.secondFactor(operatorName: operatorName), factor.isEnabled else {
            throw Self.notEnabled()
        }
        let codes = Self.makeRecoveryCodes()
        try store.replaceRecoveryCodes(
            operatorName: operatorName, digests: codes.map { Self.digest(of: $0, salt: factor.recoverySalt) })
        return codes
    }

    func isEnabled(operatorName: String) throws -> Bool {
        try store.operatorsWithSecondFactor().contains(operatorName)
    }

    static func invalidCode() -> HTTPError {
        HTTPError(status: 401, code: "invalid_code", message: "the code is wrong, expired or used already")
    }

    static func notEnabled() -> HTTPError {
        HTTPError(status: 409, code: "two_factor_disabled", message: "two-factor sign-in is not on for this operator")
    }

    /// A code as typed, without the spaces and dashes authenticator apps and printouts put in.
    static func digits(_ code: String) -> String {
        String(code.filter { $0 != " " && $0 != "-" })
    }

    /// `xxxxx-xxxxx`, lower-case base32: 50 random bits each.
    static func makeRecoveryCodes() -> [String] {
        (0..<recoveryCodeCount).map { _ in
            let text = Base32.encode(SecureRandom.bytes(7)).prefix(10).lowercased()
            return "\(text.prefix(5))-\(text.suffix(5))"
        }
    }

    /// SHA-256 of the operator's salt and the code as typed in any case, without spaces and dashes.
    static func digest(of code: String, salt: [UInt8]) -> [UInt8] {
        SHA256Digest.hash(salt + Array(digits(code).lowercased().utf8))
    }
}
