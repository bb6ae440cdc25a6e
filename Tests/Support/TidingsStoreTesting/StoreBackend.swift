import Foundation
import Testing
import TidingsStore

/// The store implementations the shared suite runs against; PostgreSQL joins when it exists.
package enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite

    package var testDescription: String { rawValue }

    /// One directory per test process for every store it makes, removed when the process exits.
    package static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tidings-store-tests-\(ProcessInfo.processInfo.processIdentifier)")
        atexit { try? FileManager.default.removeItem(at: StoreBackend.root) }
        return root
    }()

    /// A new, empty store of this backend in its own temporary directory.
    package func makeStore() throws -> any Store {
        switch self {
        case .sqlite:
            return try SQLiteStore(directory: Self.root.appendingPathComponent(UUID().uuidString))
        }
    }
}
