import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsPostgres
import TidingsSQLite
import TidingsStore
import TidingsStoreTesting

/// Push credentials and forwarder secrets encrypted at rest (``SecretsAtRestStore``), on every backend: what a
/// copy of the store shows without the key, wrong keys, altered and moved values, and re-encryption.
@Suite struct StoreSecretsAtRestTests {
    static let now: Int64 = 1_800_000_000_000
    static let pem = "-----BEGIN PRIVATE KEY-----\nAPNSKEYMATERIAL0123\n-----END PRIVATE KEY-----\n"
    static let serviceAccount = #"{"type":"service_account","private_key":"FCMKEYMATERIAL4567"}"#
    static let webhookSecret = "whsec_WEBHOOKSECRET89"
    static let writeKey = "TDWRITEKEY1234567"
    static let plaintexts = ["APNSKEYMATERIAL0123", "FCMKEYMATERIAL4567", "WEBHOOKSECRET89", "TDWRITEKEY1234567"]

    /// The store's sealer in these tests: the keyring tidingsd uses.
    struct KeyringSealer: SecretSealer {
        var keyring: SecretsKeyring
        init(_ key: SecretsKey) { keyring = SecretsKeyring(sealingKey: key) }
        var keyID: String { keyring.keyID }
        func seal(_ plaintext: [UInt8], context: String) throws -> [UInt8] {
            try keyring.seal(plaintext, context: context)
        }
        func open(_ sealed: [UInt8], context: String) throws -> [UInt8] { try keyring.open(sealed, context: context) }
    }

    /// One store's place, reopened with whatever sealer a step needs.
    struct Place {
        var backend: StoreBackend
        var directory: URL
        var postgres: PostgresStore.Configuration?

        init(_ backend: StoreBackend) throws {
            self.backend = backend
            directory = StoreBackend.root.appendingPathComponent(UUID().uuidString)
            postgres = backend == .postgres ? try StoreBackend.postgresConfiguration() : nil
        }

        func open(_ sealer: (any SecretSealer)?) throws -> any Store {
            if var configuration = postgres {
                configuration.secretSealer = sealer
                return try PostgresStore(configuration: configuration)
            }
            return try SQLiteStore(directory: directory, checkpointInterval: nil, secretSealer: sealer)
        }

        /// Everything a copy of the store holds: the SQLite files, or a pg_dump of the database.
        func copy() throws -> Data {
            if let postgres {
                let name = postgres.connectionString.split(separator: " ").first { $0.hasPrefix("dbname=") }!
                return Data(try PostgresTestCluster.shared.get().dump(database: String(name.dropFirst(7))).utf8)
            }
            var data = Data()
            for suffix in ["", "-wal"] {
                let file = directory.appendingPathComponent(SQLiteStore.fileName + suffix)
                data += (try? Data(contentsOf: file)) ?? Data()
            }
            return data
        }

        /// Runs SQL on the store's database behind the store's back.
        func tamper(_ sql: String) throws {
            if let postgres {
                let name = postgres.connectionString.split(separator: " ").first { $0.hasPrefix("dbname=") }!
                try PostgresTestCluster.shared.get().psql(sql, database: String(name.dropFirst(7)))
            } else {
                let database = try SQLiteDatabase(path: directory.appendingPathComponent(SQLiteStore.fileName).path)
                try database.write { try $0.execute(sql) }
            }
        }
    }

    static func fill(_ store: any Store) throws {
        for app in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: app, name: app, bundleID: "com.example.\(app)", createdAt: now))
        }
        try store.savePushCredential(
            PushCredentialRecord(
                appID: "app_a", provider: .apns, secret: Array(pem.utf8), settings: #"{"key_id":"K","team_id":"T"}"#,
                updatedAt: now))
        try store.savePushCredential(
            PushCredentialRecord(
                appID: "app_a", provider: .fcm, secret: Array(serviceAccount.utf8), settings: "{}", updatedAt: now))
        try store.createForwarder(
            ForwarderRecord(
                id: "fwd_hook", appID: "app_a", kind: .webhook,
                settings: ["url": .string("https://hooks.example.com/t"), "secret": .string(webhookSecret)],
                createdAt: now))
        try store.createForwarder(
            ForwarderRecord(
                id: "fwd_td", appID: "app_a", kind: .treasureData,
                settings: ["database": .string("db"), "table": .string("t"), "write_key": .string(writeKey)],
                createdAt: now))
    }

    static func expectReadable(_ store: any Store) throws {
        #expect(try store.pushCredential(appID: "app_a", provider: .apns)?.secret == Array(pem.utf8))
        #expect(try store.pushCredential(appID: "app_a", provider: .fcm)?.secret == Array(serviceAccount.utf8))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_hook")?.settings["secret"] == .string(webhookSecret))
        #expect(try store.forwarders(appID: nil).map { $0.settings["write_key"] }.contains(.string(writeKey)))
    }

    static func expectNoPlaintext(in copy: Data, _ comment: Comment) {
        for plaintext in plaintexts {
            #expect(!copy.contains(Data(plaintext.utf8)), comment)
            // pg_dump writes bytea as hex.
            let hex = Data(plaintext.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(!copy.contains(Data(hex.utf8)), comment)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aCopyOfTheStoreRevealsNoSecretAndTheKeyOpensThem(_ backend: StoreBackend) throws {
        let place = try Place(backend)
        let key = SecretsKey.generate()
        let store = try place.open(KeyringSealer(key))
        try Self.fill(store)
        try Self.expectReadable(store)
        #expect(try store.secretsInventory() == SecretsInventory(plaintext: 0, sealedByKeyID: [key.id: 4]))
        Self.expectNoPlaintext(in: try place.copy(), "a copy of the store holds no secret")

        // Without the key: refused, naming the flag; with another key: refused, naming both keys.
        let keyless = try place.open(nil)
        let missing = #expect(throws: StoreError.self) { try keyless.pushCredential(appID: "app_a", provider: .apns) }
        #expect(missing?.code == .secretsKeyMissing)
        #expect(missing?.message.contains("--secrets-key-file") == true)
        #expect(missing?.message.contains(key.id) == true)
        #expect(throws: StoreError.self) { try keyless.forwarders(appID: "app_a") }
        let other = SecretsKey.generate()
        let wrong = try place.open(KeyringSealer(other))
        let refused = #expect(throws: StoreError.self) { try wrong.forwarder(appID: "app_a", id: "fwd_hook") }
        #expect(refused?.code == .secretUnreadable)
        #expect(refused?.message.contains(other.id) == true && refused?.message.contains(key.id) == true)
    }

    @Test(arguments: StoreBackend.allCases)
    func anAlteredOrMovedCiphertextIsRefused(_ backend: StoreBackend) throws {
        let place = try Place(backend)
        let sealer = KeyringSealer(.generate())
        try Self.fill(try place.open(sealer))
        // app_a's APNs key copied onto app_b: another row, so it does not open there.
        try place.tamper(
            """
            INSERT INTO push_credentials (app_id, provider, secret, settings, updated_at)
            SELECT 'app_b', provider, secret, settings, updated_at FROM push_credentials
            WHERE app_id = 'app_a' AND provider = 'apns'
            """)
        let store = try place.open(sealer)
        let moved = #expect(throws: StoreError.self) { try store.pushCredential(appID: "app_b", provider: .apns) }
        #expect(moved?.code == .secretUnreadable)
        // The last byte of the tag flipped.
        let flip =
            backend == .postgres
            ? "UPDATE push_credentials SET secret = set_byte(secret, length(secret) - 1, get_byte(secret, length(secret) - 1) # 1) WHERE app_id = 'app_a' AND provider = 'fcm'"
            : "UPDATE push_credentials SET secret = substr(secret, 1, length(secret) - 1) || X'00' WHERE app_id = 'app_a' AND provider = 'fcm'"
        try place.tamper(flip)
        let altered = #expect(throws: StoreError.self) { try store.pushCredential(appID: "app_a", provider: .fcm) }
        #expect(altered?.code == .secretUnreadable)
        #expect(try store.pushCredential(appID: "app_a", provider: .apns)?.secret == Array(Self.pem.utf8))
    }

    @Test(arguments: StoreBackend.allCases)
    func plaintextSecretsAreSealedAndRotationReencryptsEveryValue(_ backend: StoreBackend) throws {
        let place = try Place(backend)
        // Written before a key was configured: in plaintext, as before.
        try Self.fill(try place.open(nil))
        #expect(try place.open(nil).secretsInventory() == SecretsInventory(plaintext: 4))
        #expect(try place.copy().contains(Data(Self.webhookSecret.utf8)))

        let first = KeyringSealer(.generate())
        let sealedStore = try place.open(first)
        try Self.expectReadable(sealedStore)
        #expect(try sealedStore.resealSecrets(with: first) == 4)
        #expect(try sealedStore.resealSecrets(with: first) == 0, "what the key sealed already is left alone")
        #expect(try sealedStore.secretsInventory() == SecretsInventory(sealedByKeyID: [first.keyID: 4]))

        let second = KeyringSealer(.generate())
        #expect(try sealedStore.resealSecrets(with: second) == 4)
        #expect(try sealedStore.secretsInventory() == SecretsInventory(sealedByKeyID: [second.keyID: 4]))
        try Self.expectReadable(try place.open(second))
        #expect(throws: StoreError.self) { try place.open(first).pushCredential(appID: "app_a", provider: .apns) }
        Self.expectNoPlaintext(in: try place.copy(), "no plaintext is left after sealing")

        // A store opening with the wrong key cannot rotate: nothing changes.
        let third = KeyringSealer(.generate())
        #expect(throws: StoreError.self) { try place.open(third).resealSecrets(with: third) }
        #expect(try sealedStore.secretsInventory() == SecretsInventory(sealedByKeyID: [second.keyID: 4]))
    }
}
