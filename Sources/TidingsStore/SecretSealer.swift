import Foundation

/// Seals the secrets a store keeps (APNs keys, FCM service accounts, forwarders' write keys and webhook
/// secrets) before they are written, and opens them when read: a key-encryption key the store never holds.
///
/// `tidingsd` passes a keyring of `TidingsCrypto` (AES-256-GCM); docs/security.md ("Secrets at rest")
/// describes the format. A store without a sealer writes secrets as given and refuses to read sealed ones.
public protocol SecretSealer: Sendable {
    /// The id of the key new values are sealed with, as ``SealedSecret/keyID(of:)`` reads it back.
    var keyID: String { get }
    /// `plaintext` sealed for the row `context` names; only the same context opens it.
    func seal(_ plaintext: [UInt8], context: String) throws -> [UInt8]
    /// The plaintext of a value ``seal(_:context:)`` made for `context`.
    /// - Throws: when no key of the sealer made it, or it was altered or moved from another row.
    func open(_ sealed: [UInt8], context: String) throws -> [UInt8]
}

/// How a stored value tells whether it is sealed, and by which key: the envelope's header, which both
/// backends read without the key (for ``SecretsAtRestStore/secretsInventory()`` and a clear refusal).
///
/// - Important: The layout is `SecretsKeyring`'s (TidingsCrypto): `TDSE`, a version byte, then the key id's
///   8 bytes. A test checks the two agree.
public enum SealedSecret {
    static let magic: [UInt8] = Array("TDSE".utf8)
    static let version: UInt8 = 1
    /// The prefix of a sealed text column (a forwarder's settings): the envelope follows in base64.
    static let textPrefix = "sealed:"

    /// Whether `bytes` are an envelope rather than a value stored in plaintext.
    public static func isSealed(_ bytes: [UInt8]) -> Bool {
        bytes.count > magic.count && Array(bytes.prefix(magic.count)) == magic
    }

    /// The hex id of the key that sealed `bytes`, or nil when they are no envelope this build reads.
    public static func keyID(of bytes: [UInt8]) -> String? {
        guard isSealed(bytes), bytes.count >= magic.count + 9, bytes[magic.count] == version else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes[(magic.count + 1)..<(magic.count + 9)] {
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The place of an app's push credentials, bound into their envelope.
    package static func pushCredentialContext(appID: String, provider: PushCredentialRecord.Provider) -> String {
        "push_credentials/\(appID)/\(provider.rawValue)"
    }

    /// The place of a forwarder's settings, bound into their envelope.
    package static func forwarderContext(id: String) -> String { "forwarders/\(id)/settings" }

    /// The place of an operator's TOTP secret, bound into its envelope.
    package static func secondFactorContext(operatorName: String) -> String {
        "operator_second_factors/\(operatorName)/secret"
    }
}

/// What both backends do with secrets on their way in and out: seal with the store's sealer when it has
/// one, open what is sealed, pass plaintext (written before a key was configured) through.
package struct SecretCodec: Sendable {
    package let sealer: (any SecretSealer)?

    package init(sealer: (any SecretSealer)?) {
        self.sealer = sealer
    }

    /// `plaintext` sealed, for a secret never stored in plaintext (an operator's TOTP secret).
    /// - Throws: ``StoreError/Code/secretsKeyMissing`` when the store has no sealer.
    package func sealed(_ plaintext: [UInt8], context: String) throws -> [UInt8] {
        guard let sealer else {
            throw StoreError(
                code: .secretsKeyMissing,
                message:
                    "the \(context) is only stored encrypted, and no secrets key is configured: start tidingsd with --secrets-key-file (TIDINGS_SECRETS_KEY_FILE)"
            )
        }
        return try sealer.seal(plaintext, context: context)
    }

    /// `plaintext` as it is to be written.
    package func stored(_ plaintext: [UInt8], context: String) throws -> [UInt8] {
        guard let sealer else { return plaintext }
        return try sealer.seal(plaintext, context: context)
    }

    /// The plaintext of a value as it was read.
    /// - Throws: ``StoreError/Code/secretsKeyMissing`` when it is sealed and the store has no sealer,
    ///   ``StoreError/Code/secretUnreadable`` when the sealer cannot open it.
    package func plaintext(_ stored: [UInt8], context: String) throws -> [UInt8] {
        guard SealedSecret.isSealed(stored) else { return stored }
        guard let sealer else {
            throw StoreError(
                code: .secretsKeyMissing,
                message:
                    "the \(context) is encrypted with secrets key \(SealedSecret.keyID(of: stored) ?? "?"), and no key is configured: start tidingsd with --secrets-key-file (TIDINGS_SECRETS_KEY_FILE) naming that key"
            )
        }
        do {
            return try sealer.open(stored, context: context)
        } catch {
            throw StoreError(code: .secretUnreadable, message: "\(error)")
        }
    }

    /// A text value (JSON) as it is to be written: `sealed:` and the envelope in base64 when sealing.
    package func storedText(_ plaintext: String, context: String) throws -> String {
        guard sealer != nil else { return plaintext }
        let sealed = try stored(Array(plaintext.utf8), context: context)
        return SealedSecret.textPrefix + Data(sealed).base64EncodedString()
    }

    /// The plaintext of a text value as it was read.
    package func plaintextText(_ stored: String, context: String) throws -> String {
        guard let envelope = try Self.envelope(ofText: stored, context: context) else { return stored }
        return String(decoding: try plaintext(envelope, context: context), as: UTF8.self)
    }

    /// The envelope of a sealed text value; nil for plaintext.
    package static func envelope(ofText text: String, context: String) throws -> [UInt8]? {
        guard text.hasPrefix(SealedSecret.textPrefix) else { return nil }
        guard let data = Data(base64Encoded: String(text.dropFirst(SealedSecret.textPrefix.count))),
            SealedSecret.isSealed(Array(data))
        else {
            throw StoreError(code: .secretUnreadable, message: "the \(context) is damaged: not an envelope")
        }
        return Array(data)
    }
}
