import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTestSupport
import TidingsTesting

/// What tidingsd does with the store's secrets when it opens the store: a generated key for a fresh SQLite
/// store, plaintext sealed at start, and a clear refusal when the key is missing or wrong.
@Suite struct SecretsAtRestStartupTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("secrets-at-rest") }

    static let pem = Array("-----BEGIN PRIVATE KEY-----\nSTARTUPKEYMATERIAL\n-----END PRIVATE KEY-----\n".utf8)

    func configuration(keyFile: String? = nil) -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: scratch.url.path)
        configuration.secretsKey = keyFile.map(ServerConfiguration.SecretsKeySource.file)
        return configuration
    }

    func saveCredential(_ store: any Store) throws {
        if try store.app(id: "app_1") == nil {
            try store.createApp(AppRecord(id: "app_1", name: "one", bundleID: "com.example.one", createdAt: 1))
        }
        try store.savePushCredential(
            PushCredentialRecord(appID: "app_1", provider: .apns, secret: Self.pem, settings: "{}", updatedAt: 1))
    }

    @Test func aFreshSQLiteStoreGetsAKeyFileReadableByItsOwnerOnly() throws {
        let logs = InMemoryLogHandler()
        let store = try configuration().openStore(logger: Logger(label: "t", handler: logs))
        try saveCredential(store)
        let keyPath = scratch.url.appendingPathComponent("secrets.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try ServerConfiguration.readSecretsKey(path: keyPath)
        #expect(try store.secretsInventory() == SecretsInventory(sealedByKeyID: [key.id: 1]))
        #expect(logs.entries.contains { $0.level == .warning && $0.message.contains("generated a secrets key") })
        // The next start uses the same key.
        #expect(try configuration().openStore().pushCredential(appID: "app_1", provider: .apns)?.secret == Self.pem)
    }

    @Test func aStoreWithEncryptedSecretsAndNoKeyIsRefusedNamingTheFlag() throws {
        try saveCredential(try configuration().openStore())
        let keyPath = scratch.url.appendingPathComponent("secrets.key").path
        let key = try ServerConfiguration.readSecretsKey(path: keyPath)
        try FileManager.default.removeItem(atPath: keyPath)
        let error = #expect(throws: SecretsAtRestError.self) { try configuration().openStore() }
        #expect(error?.message.contains("--secrets-key-file") == true)
        #expect(error?.message.contains(key.id) == true)
        #expect(!FileManager.default.fileExists(atPath: keyPath), "no key is made up for a store that has one")
    }

    @Test func aWrongKeyFileIsRefusedNamingBothKeys() throws {
        try saveCredential(try configuration().openStore())
        let original = try ServerConfiguration.readSecretsKey(
            path: scratch.url.appendingPathComponent("secrets.key").path)
        let wrong = SecretsKey.generate()
        let wrongPath = scratch.url.appendingPathComponent("wrong.key").path
        try ServerConfiguration.writeSecretsKey(wrong, path: wrongPath)
        let error = #expect(throws: SecretsAtRestError.self) { try configuration(keyFile: wrongPath).openStore() }
        #expect(error?.message.contains(original.id) == true)
        #expect(error?.message.contains(wrong.id) == true)
        #expect(error?.message.contains(wrong.fileText.trimmingCharacters(in: .newlines)) == false)

        let unreadable = #expect(throws: SecretsAtRestError.self) {
            try configuration(keyFile: scratch.url.appendingPathComponent("absent.key").path).openStore()
        }
        #expect(unreadable?.message.contains("absent.key") == true)
        let garbage = try scratch.file("not a key")
        #expect(throws: SecretsAtRestError.self) { try configuration(keyFile: garbage.path).openStore() }
    }

    @Test func plaintextSecretsAreEncryptedWhenAKeyIsConfigured() throws {
        // A store written by an older tidingsd: secrets in plaintext.
        try saveCredential(try SQLiteStore(directory: scratch.url, checkpointInterval: nil))
        let key = SecretsKey.generate()
        let keyPath = scratch.url.appendingPathComponent("operator.key").path
        try ServerConfiguration.writeSecretsKey(key, path: keyPath)
        let logs = InMemoryLogHandler()
        let store = try configuration(keyFile: keyPath).openStore(logger: Logger(label: "t", handler: logs))
        #expect(try store.secretsInventory() == SecretsInventory(sealedByKeyID: [key.id: 1]))
        #expect(try store.pushCredential(appID: "app_1", provider: .apns)?.secret == Self.pem)
        #expect(logs.entries.contains { $0.message.contains("encrypted the secrets") })
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("secrets.key").path))
    }

    @Test func aPostgresStoreWithoutAKeyWarnsAndKeepsWorking() throws {
        var configuration = ServerConfiguration(dataDirectory: scratch.url.path)
        configuration.postgresStore = try StoreBackend.postgresConfiguration().connectionString
        let logs = InMemoryLogHandler()
        let store = try configuration.openStore(logger: Logger(label: "t", handler: logs))
        try saveCredential(store)
        #expect(logs.entries.contains { $0.level == .warning && $0.message.contains("unencrypted") })
        #expect(try store.secretsInventory() == SecretsInventory(plaintext: 1))
    }

    @Test func theStoreReadsTheEnvelopeHeaderTheKeyringWrites() throws {
        let keyring = SecretsKeyring(sealingKey: .generate())
        let sealed = try keyring.seal(Self.pem, context: "c")
        #expect(SealedSecret.isSealed(sealed) && SecretsKeyring.isSealed(sealed))
        #expect(SealedSecret.keyID(of: sealed) == keyring.keyID)
        #expect(!SealedSecret.isSealed(Self.pem))
    }

    @Test func theKeyComesFromTheFlagTheVariableOrTheFile() throws {
        let key = SecretsKey.generate()
        let resolved = try ServerConfiguration.resolve(
            arguments: ["--secrets-key-file", "/etc/tidings/secrets.key"], environment: [:], readFile: { _ in Data() })
        #expect(resolved == .serve(configurationWith(.file("/etc/tidings/secrets.key"))))
        let fromVariable = try ServerConfiguration.resolve(
            arguments: [], environment: ["TIDINGS_SECRETS_KEY": key.fileText], readFile: { _ in Data() })
        #expect(fromVariable == .serve(configurationWith(.key(key))))
        let error = #expect(throws: ServerConfigurationError.self) {
            try ServerConfiguration.resolve(
                arguments: [], environment: ["TIDINGS_SECRETS_KEY": "tooshortsecret"], readFile: { _ in Data() })
        }
        #expect(error?.message.contains("tooshortsecret") == false)
        let (admin, remaining) = try ServerConfiguration.resolveForAdministration(
            arguments: ["rotate", "--secrets-key-file", "/k", "--new-key-file", "/n"], environment: [:],
            readFile: { _ in Data() })
        #expect(admin.secretsKey == .file("/k"))
        #expect(remaining == ["rotate", "--new-key-file", "/n"])
    }

    private func configurationWith(_ source: ServerConfiguration.SecretsKeySource) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.secretsKey = source
        return configuration
    }
}
