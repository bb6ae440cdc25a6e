import Foundation
import TidingsCrypto
import TidingsServer
import TidingsStore

/// `tidingsd secrets ...`: the key that encrypts the store's secrets (docs/security.md, "Secrets at rest").
///
/// ```
/// tidingsd secrets generate-key --out FILE            (a new key, mode 0600; prints its id)
/// tidingsd secrets status                             (the configured key's id, what the store holds)
/// tidingsd secrets rotate --new-key-file FILE         (re-encrypts every secret with the new key)
/// ```
/// The current key comes from `--secrets-key-file`, `TIDINGS_SECRETS_KEY(_FILE)` or, for SQLite, the data
/// directory's generated `secrets.key`. Exit status: 0 done, 1 refused or failed (nothing changed), 2 usage.
/// No output names key material: keys are named by their ids.
enum SecretsCommand {
    static let name = "secrets"

    static let usage = """
        usage: tidingsd secrets generate-key --out FILE
               tidingsd secrets status [--store ...] [--data-dir DIR] [--secrets-key-file FILE]
               tidingsd secrets rotate --new-key-file FILE [--store ...] [--data-dir DIR] [--secrets-key-file FILE]
        """

    static func run(_ arguments: [String], configuration: ServerConfiguration) -> Int32 {
        do {
            let parsed = try AdminArguments(Array(arguments.dropFirst()), options: ["out", "new-key-file"])
            guard parsed.positionals.isEmpty else { throw AdminUsageError("unexpected \(parsed.positionals[0])") }
            switch arguments.first {
            case "generate-key":
                guard let out = parsed.option("out") else { throw AdminUsageError("generate-key needs --out FILE") }
                let key = SecretsKey.generate()
                try ServerConfiguration.writeSecretsKey(key, path: out)
                print("wrote secrets key \(key.id) to \(out)")
            case "status":
                let store = try configuration.openStore()
                let keyring = try configuration.secretsKeyring(logger: .disabled())
                let inventory = try store.secretsInventory()
                print("secrets key\t\(keyring?.keyID ?? "none")")
                print("plaintext\t\(inventory.plaintext)")
                for (keyID, count) in inventory.sealedByKeyID.sorted(by: { $0.key < $1.key }) {
                    print("encrypted with \(keyID)\t\(count)")
                }
            case "rotate":
                guard let newPath = parsed.option("new-key-file") else {
                    throw AdminUsageError("rotate needs --new-key-file FILE (make one with secrets generate-key)")
                }
                let newKey = try ServerConfiguration.readSecretsKey(path: newPath)
                // Opening checks every secret opens with the current key, and encrypts plaintext ones with it.
                let store = try configuration.openStore()
                guard let current = try configuration.secretsKeyring(logger: .disabled()) else {
                    throw SecretsAtRestError(
                        "no secrets key is configured: pass the current one with --secrets-key-file (with PostgreSQL, a store never encrypted needs no rotation: start with --secrets-key-file NEW_FILE)"
                    )
                }
                let rewritten = try store.resealSecrets(with: SecretsKeyring(sealingKey: newKey))
                print("re-encrypted \(rewritten) secrets from key \(current.keyID) to key \(newKey.id)")
                if configuration.secretsKey == nil {
                    try ServerConfiguration.writeSecretsKey(
                        newKey, path: configuration.generatedSecretsKeyPath, replacing: true)
                    print("replaced \(configuration.generatedSecretsKeyPath) with the new key")
                } else {
                    print("start every tidingsd on this store with --secrets-key-file \(newPath) now")
                }
            default:
                throw AdminUsageError("expected 'secrets generate-key', 'secrets status' or 'secrets rotate'")
            }
            return 0
        } catch {
            return CommandFailure.exitStatus(error, usage: usage)
        }
    }
}
