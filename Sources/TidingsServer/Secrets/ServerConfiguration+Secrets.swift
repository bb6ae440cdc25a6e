import Foundation
import TidingsCrypto

extension ServerConfiguration {
    /// Where the key that encrypts the store's secrets comes from.
    public enum SecretsKeySource: Sendable, Equatable {
        /// A file holding the key (`--secrets-key-file`).
        case file(String)
        /// The key itself (`TIDINGS_SECRETS_KEY`), for platforms that hand secrets over as variables.
        case key(SecretsKey)
    }

    /// The file name of the key tidingsd generates in the data directory of a SQLite store started without one.
    public static let generatedSecretsKeyFileName = "secrets.key"

    /// The secrets-at-rest settings (docs/security.md, "Secrets at rest").
    static let secretsSettings: [Setting] = [
        Setting(
            flag: "secrets-key-file", environment: "TIDINGS_SECRETS_KEY_FILE", fileKey: "secrets_key_file",
            help:
                "a file holding the key (32 bytes, base64 or hex) that encrypts APNs keys, FCM service accounts and forwarder secrets in the store; keep it out of the store's backups. Unset: SQLite uses DATA_DIR/secrets.key (generated), PostgreSQL stores them unencrypted and warns",
            apply: { configuration, text in
                guard !text.isEmpty else { return false }
                configuration.secretsKey = .file(text)
                return true
            }),
        Setting(
            flag: "secrets-key", environment: "TIDINGS_SECRETS_KEY", fileKey: "secrets_key",
            help: "the secrets key itself instead of a file (prefer the variable, which ps does not show)",
            apply: { configuration, text in
                guard let key = try? SecretsKey(text: text) else { return false }
                configuration.secretsKey = .key(key)
                return true
            }, secret: true),
    ]

    /// The key in `path`.
    /// - Throws: ``SecretsAtRestError`` naming the file when it cannot be read or holds no key.
    public static func readSecretsKey(path: String) throws -> SecretsKey {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SecretsAtRestError("cannot read the secrets key file \(path): \(error.localizedDescription)")
        }
        do {
            return try SecretsKey(text: String(decoding: data, as: UTF8.self))
        } catch {
            throw SecretsAtRestError("the secrets key file \(path) holds no key: \(error.message)")
        }
    }

    /// Writes `key` to a new file at `path` readable by its owner only; refuses to replace a file unless asked.
    public static func writeSecretsKey(_ key: SecretsKey, path: String, replacing: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        if !replacing, FileManager.default.fileExists(atPath: path) {
            throw SecretsAtRestError("\(path) already exists; a key file is never overwritten")
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).new")
        try? FileManager.default.removeItem(at: temporary)
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: Data(key.fileText.utf8), attributes: [.posixPermissions: 0o600])
        else { throw SecretsAtRestError("cannot write the secrets key file \(path)") }
        // rename(2) replaces the old file atomically: a crash leaves the old key or the new one, never neither.
        guard rename(temporary.path, path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw SecretsAtRestError("cannot write the secrets key file \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The path of the key generated for a SQLite store without a configured one.
    public var generatedSecretsKeyPath: String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent(Self.generatedSecretsKeyFileName).path
    }
}
