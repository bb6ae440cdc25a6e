/// Time-based one-time passwords (RFC 6238) over HOTP (RFC 4226): HMAC-SHA1, 30-second steps, what every
/// authenticator app computes from a shared secret.
///
/// ```swift
/// let totp = TOTP(secret: secret)
/// if let step = totp.matchingStep(of: "287082", at: unixSeconds) { /* refuse a step at or before the last used */ }
/// ```
public struct TOTP: Sendable {
    /// Seconds per time step.
    public static let period: Int64 = 30

    public let secret: [UInt8]
    /// Digits per code: 6 for authenticator apps; RFC 6238's test vectors use 8.
    public let digits: Int

    public init(secret: [UInt8], digits: Int = 6) {
        precondition((6...9).contains(digits), "a one-time password has 6 to 9 digits")
        self.secret = secret
        self.digits = digits
    }

    /// The HOTP value (RFC 4226 §5.3) of `counter` under `secret`, zero-padded to `digits`.
    public static func hotp(secret: [UInt8], counter: UInt64, digits: Int) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let mac = HMACSHA1.authenticationCode(key: secret, message: message)
        let offset = Int(mac[19] & 0x0F)
        let binary =
            UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The time step `unixSeconds` falls in.
    public static func step(at unixSeconds: Int64) -> Int64 {
        unixSeconds >= 0 ? unixSeconds / period : (unixSeconds - period + 1) / period
    }

    /// The code of time step `step`.
    public func code(step: Int64) -> String {
        Self.hotp(secret: secret, counter: UInt64(bitPattern: step), digits: digits)
    }

    /// The step within `window` steps of `unixSeconds` whose code is `code`, or nil.
    ///
    /// Every candidate is computed and compared in constant time, whatever matches, so timing tells nothing
    /// of which step (if any) matched. The caller refuses a step at or before the last one it accepted (replay).
    public func matchingStep(of code: String, at unixSeconds: Int64, window: Int64 = 1) -> Int64? {
        let presented = Array(code.utf8)
        let current = Self.step(at: unixSeconds)
        var matched: Int64?
        for step in (current - window)...(current + window) {
            let expected = Array(self.code(step: step).utf8)
            if SHA256Digest.constantTimeEquals(presented, expected), matched == nil { matched = step }
        }
        return matched
    }
}
