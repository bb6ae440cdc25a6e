import Foundation
import Testing
import TidingsServer

/// The store implementations the shared suite runs against; PostgreSQL joins when it exists.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite

    var testDescription: String { rawValue }

    /// A new, empty store of this backend in its own temporary directory.
    func makeStore() throws -> any Store {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "tidings-store-\(UUID().uuidString)")
            return try SQLiteStore(directory: directory)
        }
    }
}
