/// Seals secrets with one key-encryption key and opens what any of its keys sealed: AES-256-GCM envelopes.
///
/// An envelope is, byte by byte:
///
/// | bytes | what |
/// |---|---|
/// | 4 | `TDSE`, the magic that tells a sealed value from a plaintext one |
/// | 1 | the format version, 1 |
/// | 8 | the sealing key's id (``SecretsKey/id``), so a rotation finds the values of an old key |
/// | 12 | a random nonce, new for every value |
/// | n | the ciphertext |
/// | 16 | the GCM tag |
///
/// The first 13 bytes and the value's *context* (where it lives: `push_credentials/APP/apns`) are
/// authenticated as additional data, so a ciphertext copied to another row, or another key id written into
/// the header, fails to open like an altered byte does.
///
/// ```swift
/// let keyring = SecretsKeyring(sealingKey: key)
/// let sealed = try keyring.seal(Array(pem.utf8), context: "push_credentials/app_1/apns")
/// let pem = try keyring.open(sealed, context: "push_credentials/app_1/apns")
/// ```
public struct SecretsKeyring: Sendable, CustomStringConvertible {
    /// The four bytes every envelope starts with: `TDSE`.
    public static let magic: [UInt8] = Array("TDSE".utf8)
    /// The version this build writes and reads.
    public static let version: UInt8 = 1
    static let headerLength = magic.count + 1 + 8

    /// The key new values are sealed with.
    public let sealingKey: SecretsKey
    /// Every key values may be opened with, by id: the sealing key and any older ones.
    private let keys: [String: SecretsKey]

    /// A keyring sealing with `sealingKey` that also opens what `olderKeys` sealed.
    public init(sealingKey: SecretsKey, olderKeys: [SecretsKey] = []) {
        self.sealingKey = sealingKey
        var keys: [String: SecretsKey] = [:]
        for key in olderKeys + [sealingKey] { keys[key.id] = key }
        self.keys = keys
    }

    /// The id of the key new values are sealed with.
    public var keyID: String { sealingKey.id }

    /// Whether `bytes` are an envelope (of any version), as opposed to a value stored in plaintext.
    public static func isSealed(_ bytes: [UInt8]) -> Bool {
        bytes.count > magic.count && Array(bytes.prefix(magic.count)) == magic
    }

    /// The id of the key that sealed `bytes`, or nil when they are not an envelope this build reads.
    public static func keyID(of bytes: [UInt8]) -> String? {
        guard isSealed(bytes), bytes.count >= headerLength, bytes[magic.count] == version else { return nil }
        return SHA256Digest.hex(Array(bytes[(magic.count + 1)..<headerLength]))
    }

    /// `plaintext` sealed with the sealing key, bound to `context`.
    public func seal(_ plaintext: [UInt8], context: String) throws(SecretsKeyError) -> [UInt8] {
        let header = Self.magic + [Self.version] + sealingKey.idBytes
        let nonce = SecureRandom.bytes(AESGCM.nonceLength)
        let sealed = try AESGCM.seal(
            plaintext, key: sealingKey.bytes, nonce: nonce, aad: header + Array(context.utf8))
        return header + nonce + sealed
    }

    /// The plaintext of an envelope made by ``seal(_:context:)`` for the same `context`.
    /// - Throws: ``SecretsKeyError`` with ``SecretsKeyError/Code/unknownKey`` when no key of the keyring
    ///   sealed it, ``SecretsKeyError/Code/tampered`` when it does not authenticate (altered, or moved from
    ///   another context), ``SecretsKeyError/Code/malformed`` when it is no envelope of this version.
    public func open(_ envelope: [UInt8], context: String) throws(SecretsKeyError) -> [UInt8] {
        guard Self.isSealed(envelope) else {
            throw SecretsKeyError(.malformed, "the \(context) is not sealed")
        }
        guard envelope.count >= Self.headerLength + AESGCM.nonceLength + AESGCM.tagLength,
            let keyID = Self.keyID(of: envelope)
        else {
            throw SecretsKeyError(
                .malformed, "the \(context) is sealed in a format this version of tidingsd does not read")
        }
        guard let key = keys[keyID] else {
            throw SecretsKeyError(
                .unknownKey,
                "the \(context) was sealed with secrets key \(keyID), but the configured key is \(sealingKey.id)")
        }
        let header = Array(envelope.prefix(Self.headerLength))
        let nonce = Array(envelope[Self.headerLength..<(Self.headerLength + AESGCM.nonceLength)])
        let body = Array(envelope.suffix(from: Self.headerLength + AESGCM.nonceLength))
        do {
            return try AESGCM.open(body, key: key.bytes, nonce: nonce, aad: header + Array(context.utf8))
        } catch let error where error.code == .tampered {
            throw SecretsKeyError(
                .tampered, "the \(context) does not authenticate under key \(keyID): it was altered or moved")
        }
    }

    public var description: String { "SecretsKeyring(sealing: \(sealingKey.id), keys: \(keys.count))" }
}
