import Foundation
import TidingsCrypto
import TidingsModel
import TidingsStore

/// What tidingsd does with the store's secrets when it opens the store (docs/security.md, "Secrets at rest").
public enum SecretsAtRest {
    /// Checks the store's secrets against `keyring` and encrypts those still in plaintext.
    ///
    /// - Without a key: refuses a store holding encrypted secrets; otherwise warns that secrets are stored
    ///   unencrypted.
    /// - With one: refuses a store holding secrets another key encrypted (a wrong key file, or a rotation
    ///   that did not finish); encrypts plaintext ones, in one transaction.
    /// - Throws: ``SecretsAtRestError`` naming `--secrets-key-file` and the key ids involved.
    public static func prepare(store: any Store, keyring: SecretsKeyring?, logger: Logger) throws {
        let inventory = try store.secretsInventory()
        guard let keyring else {
            if inventory.sealed > 0 {
                throw SecretsAtRestError(
                    "the store holds \(inventory.sealed) encrypted secrets (secrets key \(describe(inventory))) and no secrets key is configured: start tidingsd with --secrets-key-file FILE (or TIDINGS_SECRETS_KEY_FILE) naming the key they were encrypted with"
                )
            }
            logger.warning(
                "no secrets key: APNs keys, FCM service accounts and forwarder secrets are stored unencrypted; set --secrets-key-file (docs/security.md)"
            )
            return
        }
        let foreign = inventory.sealedByKeyID.filter { $0.key != keyring.keyID }
        if !foreign.isEmpty {
            throw SecretsAtRestError(
                "the store holds \(foreign.values.reduce(0, +)) secrets encrypted with secrets key \(describe(SecretsInventory(sealedByKeyID: foreign))), but the configured key is \(keyring.keyID): the key file is not theirs, or a rotation did not finish. Start with --secrets-key-file naming the key they were encrypted with (tidingsd secrets rotate moves them to a new one)"
            )
        }
        if inventory.plaintext > 0 {
            let sealed = try store.resealSecrets(with: keyring)
            logger.notice(
                "encrypted the secrets the store held in plaintext",
                metadata: ["count": String(sealed), "key_id": keyring.keyID])
        }
    }

    private static func describe(_ inventory: SecretsInventory) -> String {
        inventory.sealedByKeyID.keys.sorted().joined(separator: ", ")
    }
}

extension ServerConfiguration {
    /// The keyring that seals the store's secrets: the configured key (`--secrets-key-file`,
    /// `TIDINGS_SECRETS_KEY`); without one, for a SQLite store, the key in the data directory's `secrets.key`,
    /// generated (mode 0600) on the first start; for PostgreSQL, none.
    ///
    /// A SQLite store that already holds encrypted secrets never gets a generated key: the start is refused
    /// instead, naming the flag.
    /// - Throws: ``SecretsAtRestError`` when the key file cannot be read or holds no key.
    public func secretsKeyring(logger: Logger) throws -> SecretsKeyring? {
        switch secretsKey {
        case .file(let path):
            return SecretsKeyring(sealingKey: try Self.readSecretsKey(path: path))
        case .key(let key):
            return SecretsKeyring(sealingKey: key)
        case nil:
            guard postgresStore == nil else { return nil }
            let path = generatedSecretsKeyPath
            if FileManager.default.fileExists(atPath: path) {
                return SecretsKeyring(sealingKey: try Self.readSecretsKey(path: path))
            }
            let directory = URL(fileURLWithPath: dataDirectory)
            let storeFile = directory.appendingPathComponent(SQLiteStore.fileName).path
            if FileManager.default.fileExists(atPath: storeFile),
                try SQLiteStore(path: storeFile, checkpointInterval: nil).secretsInventory().sealed > 0
            {
                return nil
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let key = SecretsKey.generate()
            try Self.writeSecretsKey(key, path: path)
            logger.warning(
                "generated a secrets key beside the store: a copy of the data directory holds both; move the key out and pass --secrets-key-file (docs/security.md)",
                metadata: ["path": path, "key_id": key.id])
            return SecretsKeyring(sealingKey: key)
        }
    }
}
