import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// An import that finds an installation absent while another transaction is creating it (the device
/// registering through another instance during the import) applies its row to what that transaction wrote,
/// instead of writing over it a row decided on nothing.
@Suite struct PostgresImportRaceTests {
    @Test func anInstallationCreatedDuringTheImportKeepsWhatItsCreatorWrote() throws {
        let store = try PostgresStore(configuration: try StoreBackend.postgresConfiguration())
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 1))
        // The device's registration, not yet committed when the import reads the installation.
        let device = try PostgresConnection(settings: store.pool.settings)
        try device.execute("BEGIN")
        try device.run(
            """
            INSERT INTO installations (app_id, installation_id, platform, apns_token, user_id, created_at, updated_at)
            VALUES ('app_a', 'dev', 'ios', 't-device', 'alice', 1, 1)
            """)
        var update = InstallationUpdate()
        update.locale = .set("fr_FR")
        let batch = ImportBatch(
            appID: "app_a", importID: "imp", profile: "native", firstRow: 1, rowCount: 1,
            rows: [
                ImportRow(
                    number: 1, items: [ImportRow.Item(installationID: "dev", update: update)], userID: nil,
                    userDigest: nil, tags: [])
            ], rejectedBeforeStore: [], dryRun: false, now: 1000)
        let imported = DispatchSemaphore(value: 0)
        let outcome = LockedBox<Result<ImportBatchResult, any Error>?>(nil)
        Thread {
            outcome.withLock { $0 = Result { try store.importBatch(batch) } }
            imported.signal()
        }.start()
        // The import's insert waits for the device's transaction.
        #expect(imported.wait(timeout: .now() + .milliseconds(500)) == .timedOut)
        try device.execute("COMMIT")
        #expect(imported.wait(timeout: .now() + 10) == .success)
        _ = try #require(try outcome.withLock { $0 }?.get())

        let stored = try #require(try store.installation(appID: "app_a", installationID: "dev"))
        #expect(stored.apnsToken == "t-device" && stored.userID == "alice")
        #expect(stored.locale == "fr_FR")
    }
}
