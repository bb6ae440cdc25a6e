import Foundation
import TidingsCrypto
import TidingsModel
import TidingsPostgres
import TidingsStore

extension ServerConfiguration {
    /// Opens the store this configuration names: PostgreSQL (`--store postgres://...`, with a pool of
    /// `--store-connections`), or the SQLite file in the data directory (created, with the directory, when
    /// missing). Migrations run on open; secrets are sealed with the secrets key (``openStore(logger:)``).
    public func openStore() throws -> any Store {
        try openStore(logger: .disabled())
    }

    /// ``openStore()``, with the store's secrets sealed with ``secretsKeyring(logger:)``: secrets still in
    /// plaintext are encrypted now, and a store whose secrets no configured key opens is refused
    /// (``SecretsAtRest/prepare(store:keyring:logger:)``).
    public func openStore(logger: Logger) throws -> any Store {
        let keyring = try secretsKeyring(logger: logger)
        let store: any Store
        if let postgresStore {
            var configuration = PostgresStore.Configuration(connectionString: postgresStore)
            if let postgresConnections { configuration.maximumConnections = postgresConnections }
            configuration.secretSealer = keyring
            store = try PostgresStore(configuration: configuration)
        } else {
            let directory = URL(fileURLWithPath: dataDirectory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SQLiteStore(directory: directory, secretSealer: keyring)
        }
        try SecretsAtRest.prepare(store: store, keyring: keyring, logger: logger)
        return store
    }
}
