import Foundation
import Testing
import TidingsPostgres
import TidingsStore

/// The store implementations the shared suite runs against.
package enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    /// A database of its own in the test process's throwaway cluster (``PostgresTestCluster``). Fails, never
    /// skips, when PostgreSQL is not installed: `scripts/bootstrap` installs it.
    case postgres

    package var testDescription: String { rawValue }

    /// One directory per test process for every store it makes, removed when the process exits.
    package static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tidings-store-tests-\(ProcessInfo.processInfo.processIdentifier)")
        atexit { try? FileManager.default.removeItem(at: StoreBackend.root) }
        return root
    }()

    /// A new, empty store of this backend: in its own temporary directory, or its own database.
    package func makeStore(secretSealer: (any SecretSealer)? = nil) throws -> any Store {
        try makeSharedStores(count: 1, secretSealer: secretSealer)[0]
    }

    /// `count` stores on one new, empty place (a SQLite directory, a PostgreSQL database), as several tidingsd
    /// instances sharing a store open it; each seals secrets with `secretSealer`.
    package func makeSharedStores(count: Int, secretSealer: (any SecretSealer)? = nil) throws -> [any Store] {
        switch self {
        case .sqlite:
            let directory = Self.root.appendingPathComponent(UUID().uuidString)
            return try (0..<count).map { _ in
                try SQLiteStore(directory: directory, secretSealer: secretSealer) as any Store
            }
        case .postgres:
            var configuration = try Self.postgresConfiguration()
            configuration.secretSealer = secretSealer
            return try (0..<count).map { _ in try PostgresStore(configuration: configuration) as any Store }
        }
    }

    /// A new, empty PostgreSQL database in the test cluster, and a small pool for it.
    package static func postgresConfiguration() throws -> PostgresStore.Configuration {
        let cluster = try PostgresTestCluster.shared.get()
        var configuration = PostgresStore.Configuration(connectionString: try cluster.makeDatabase())
        configuration.maximumConnections = 4
        return configuration
    }
}
