import Foundation

/// A 256-bit key-encryption key: what seals the secrets a store keeps (docs/security.md, "Secrets at rest").
///
/// Kept outside the store, in a file or an environment variable, as 32 bytes in base64 (what
/// ``generate()`` writes) or 64 hex digits. Its ``id`` is derived from the key, so a sealed value names
/// the key that sealed it without revealing anything about it.
///
/// ```swift
/// let key = try SecretsKey(text: String(contentsOfFile: "/etc/tidings/secrets.key"))
/// ```
public struct SecretsKey: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    let bytes: [UInt8]
    /// The id's 8 bytes, as envelopes carry them.
    let idBytes: [UInt8]
    /// 16 hex digits naming the key: the first 8 bytes of a SHA-256 of it, domain-separated.
    public let id: String

    /// The key of `bytes`, which must be 32 bytes long.
    /// - Throws: ``SecretsKeyError/Code/invalidKey`` for any other length.
    public init(bytes: [UInt8]) throws(SecretsKeyError) {
        guard bytes.count == AESGCM.keyLength else {
            throw SecretsKeyError(
                .invalidKey, "a secrets key is \(AESGCM.keyLength) bytes, this one \(bytes.count)")
        }
        self.bytes = bytes
        idBytes = Array(SHA256Digest.hash(Array("tidings secrets key id\u{0}".utf8) + bytes).prefix(8))
        id = SHA256Digest.hex(idBytes)
    }

    /// The key written in `text`: base64 (standard or URL-safe, padded or not) or hex of 32 bytes, with
    /// surrounding white space ignored.
    /// - Throws: ``SecretsKeyError/Code/invalidKey`` naming what was expected, never repeating the text.
    public init(text: String) throws(SecretsKeyError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count == 64, let bytes = Self.hexBytes(trimmed) {
            try self.init(bytes: bytes)
            return
        }
        var base64 = trimmed.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), data.count == AESGCM.keyLength else {
            throw SecretsKeyError(
                .invalidKey,
                "a secrets key is 32 random bytes written as base64 (44 characters) or hex (64 digits); make one with 'tidingsd secrets generate-key'"
            )
        }
        try self.init(bytes: Array(data))
    }

    /// A new random key.
    public static func generate() -> SecretsKey {
        // 32 bytes always make a key.
        try! SecretsKey(bytes: SecureRandom.bytes(AESGCM.keyLength))
    }

    /// The key as a key file holds it: base64 and a newline.
    public var fileText: String { Data(bytes).base64EncodedString() + "\n" }

    /// Never the key: its id only.
    public var description: String { "SecretsKey(id: \(id))" }

    /// `dump` and debuggers show the id only.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = nibble(high), let l = nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
