import Foundation
import TidingsStore
import TidingsTesting

/// An app with many installations in a SQLite store in tidingsd's data directory, written before tidingsd
/// starts (and the store closed), for the benchmarks that measure tidingsd at scale.
enum SeededApp {
    /// Creates the app and `installations` installations `inst-0000000`…, each with its own APNs token;
    /// `configure` adds fields per index. Prints progress every 100,000.
    static func create(
        directory: URL, bundleID: String, installations: Int,
        configure: (Int, inout InstallationUpdate) -> Void = { _, _ in }
    ) throws -> (app: ProvisionedApp, store: SQLiteStore) {
        let store = try SQLiteStore(directory: directory)
        let app = try ProvisionedApp.create(
            store: store, dataDirectory: directory, name: "bench", bundleID: bundleID, identityVerification: .optional)
        let now = Date().millisecondsSince1970
        for index in 0..<installations {
            var update = InstallationUpdate()
            update.platform = .set("ios")
            update.apnsToken = .set(token(index))
            update.environment = .set("production")
            configure(index, &update)
            _ = try store.upsertInstallation(
                appID: app.app.id, installationID: installationID(index), update: update, now: now)
            if index > 0, index % 100_000 == 0 { Measure.line("  \(index) installations written") }
        }
        return (app, store)
    }

    static func installationID(_ index: Int) -> String { String(format: "inst-%07d", index) }
    static func token(_ index: Int) -> String { String(format: "%064x", index) }
}
