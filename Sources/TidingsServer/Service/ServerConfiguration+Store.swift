import Foundation
import TidingsPostgres
import TidingsStore

extension ServerConfiguration {
    /// Opens the store this configuration names: PostgreSQL (`--store postgres://...`, with a pool of
    /// `--store-connections`), or the SQLite file in the data directory (created, with the directory, when
    /// missing). Migrations run on open.
    public func openStore() throws -> any Store {
        if let postgresStore {
            var configuration = PostgresStore.Configuration(connectionString: postgresStore)
            if let postgresConnections { configuration.maximumConnections = postgresConnections }
            return try PostgresStore(configuration: configuration)
        }
        let directory = URL(fileURLWithPath: dataDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try SQLiteStore(directory: directory)
    }
}
