import COpenSSL
import Foundation

/// Operator passwords hashed with scrypt (OpenSSL's `EVP_PBE_scrypt`), a memory-hard KDF, so that a stolen
/// store costs an attacker memory and time per guess.
///
/// The stored form names its parameters, so they can rise later without invalidating old hashes:
/// `scrypt$<log2 N>$<r>$<p>$<salt, base64url>$<key, base64url>`.
///
/// ```swift
/// let stored = try PasswordHash.make("correct horse")
/// PasswordHash.verify("correct horse", against: stored)  // true
/// ```
public enum PasswordHash {
    /// scrypt's cost parameters.
    public struct Parameters: Sendable, Hashable {
        /// log2 of N, the CPU and memory cost: memory is 128 · N · r bytes.
        public var logN: Int
        public var r: Int
        public var p: Int

        public init(logN: Int, r: Int, p: Int) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        /// N = 2^15, r = 8, p = 1: 32 MiB and about a tenth of a second per hash.
        public static let standard = Parameters(logN: 15, r: 8, p: 1)
    }

    /// The shortest password ``make(_:parameters:)`` accepts, in characters.
    public static let minimumLength = 10
    /// The longest, in UTF-8 bytes: a bound on the work one login attempt can ask for.
    public static let maximumBytes = 1024
    static let saltBytes = 16
    static let keyBytes = 32

    /// A fresh salt and the derived key in the stored form.
    /// - Throws: ``PasswordHashError`` when the password is shorter than ``minimumLength`` or longer than
    ///   ``maximumBytes``, or when OpenSSL refuses the parameters.
    public static func make(_ password: String, parameters: Parameters = .standard) throws(PasswordHashError)
        -> String
    {
        guard password.count >= minimumLength else {
            throw PasswordHashError(
                code: .tooShort, message: "a password needs at least \(minimumLength) characters")
        }
        guard password.utf8.count <= maximumBytes else {
            throw PasswordHashError(code: .tooLong, message: "a password may have at most \(maximumBytes) bytes")
        }
        let salt = SecureRandom.bytes(saltBytes)
        guard let key = derive(password, salt: salt, parameters: parameters) else {
            throw PasswordHashError(code: .kdfFailed, message: "OpenSSL's scrypt refused the parameters")
        }
        return [
            "scrypt", String(parameters.logN), String(parameters.r), String(parameters.p), Base64URL.encode(salt),
            Base64URL.encode(key),
        ].joined(separator: "$")
    }

    /// Whether `password` derives the key in `stored`, compared in constant time. A malformed stored value,
    /// or parameters beyond what ``make(_:parameters:)`` would write, never verify.
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), let r = Int(parts[2]),
            let p = Int(parts[3]), (1...20).contains(logN), (1...32).contains(r), (1...16).contains(p),
            let salt = Base64URL.decode(parts[4]), let expected = Base64URL.decode(parts[5]), !expected.isEmpty,
            password.utf8.count <= maximumBytes
        else { return false }
        guard let key = derive(password, salt: salt, parameters: Parameters(logN: logN, r: r, p: p)) else {
            return false
        }
        return SHA256Digest.constantTimeEquals(key, expected)
    }

    /// A stored value no password verifies against, with the standard cost: checked when an account does not
    /// exist so that a missing name takes as long to refuse as a wrong password.
    public static let decoy = "scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

    static func derive(_ password: String, salt: [UInt8], parameters: Parameters) -> [UInt8]? {
        let n = UInt64(1) << UInt64(parameters.logN)
        let r = UInt64(parameters.r)
        let p = UInt64(parameters.p)
        // scrypt needs 128·N·r bytes for V plus 128·r·p for B; allow that and a margin.
        let memory = 128 * n * r + 128 * r * p + 1024 * 1024
        var key = [UInt8](repeating: 0, count: keyBytes)
        let password = Array(password.utf8)
        let status = password.withUnsafeBufferPointer { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                key.withUnsafeMutableBufferPointer { keyBytes in
                    passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                        EVP_PBE_scrypt(
                            passwordChars.baseAddress, passwordChars.count, saltBytes.baseAddress, saltBytes.count, n,
                            r,
                            p, memory, keyBytes.baseAddress, keyBytes.count)
                    }
                }
            }
        }
        return status == 1 ? key : nil
    }
}
