import Foundation
import TidingsCrypto

/// The `Tidings-Signature` header of a forwarded webhook request: `t=<unix seconds>,v1=<hex HMAC-SHA256>`,
/// the HMAC keyed with the forwarder's signing secret over `<t>.<body>`.
///
/// Signing the timestamp with the body lets a receiver refuse a captured request replayed later: it checks
/// the signature, then that `t` is within its tolerance of its own clock.
///
/// ```swift
/// let header = WebhookSignature.header(secret: secret, timestamp: 1_764_547_200, body: body)
/// try WebhookSignature.verify(header: header, secret: secret, body: body, now: 1_764_547_230)
/// ```
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Tidings-Signature"
    /// How far `t` may be from the receiver's clock by default.
    public static let defaultTolerance: Int64 = 300

    /// Why a signature does not verify.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The hex HMAC-SHA256 of `<timestamp>.<body>` under `secret`.
    public static func signature(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let signed = Array("\(timestamp).".utf8) + body
        return SHA256Digest.hex(HMACSHA256.authenticationCode(key: Array(secret.utf8), message: signed))
    }

    /// The header value for a request sent at `timestamp` (unix seconds).
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(signature(secret: secret, timestamp: timestamp, body: body))"
    }

    /// Checks a received header against the body, the secret and the receiver's clock.
    /// - Throws: ``Failure`` naming what is wrong: the header's shape, the age, or the signature.
    public static func verify(
        header: String, secret: String, body: [UInt8], now: Int64, tolerance: Int64 = defaultTolerance
    ) throws(Failure) {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "t": timestamp = Int64(pair[1])
            case "v1": signatures.append(pair[1].lowercased())
            default: continue  // a later scheme this verifier does not know
            }
        }
        guard let timestamp else { throw Failure(message: "the header has no t=<unix seconds>") }
        guard !signatures.isEmpty else { throw Failure(message: "the header has no v1=<hex signature>") }
        guard abs(now - timestamp) <= tolerance else {
            throw Failure(
                message: "the timestamp is \(abs(now - timestamp)) s from now; at most \(tolerance) s is accepted")
        }
        let expected = Array(signature(secret: secret, timestamp: timestamp, body: body).utf8)
        guard signatures.contains(where: { SHA256Digest.constantTimeEquals(Array($0.utf8), expected) }) else {
            throw Failure(message: "the signature does not match the body and the secret")
        }
    }
}
