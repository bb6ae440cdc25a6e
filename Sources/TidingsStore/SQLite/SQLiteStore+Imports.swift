import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    public func importBatch(_ batch: ImportBatch) throws -> ImportBatchResult {
        do {
            return try database.write { db in try ImportBatchWriter.write(batch, in: SQLiteImportTransaction(db: db)) }
        } catch let rollback as ImportDryRunRollback {
            return rollback.result
        }
    }

    public func importProgress(appID: String, importID: String) throws -> ImportProgress? {
        try reader.read { db in try SQLiteImportTransaction(db: db).progress(appID: appID, importID: importID) }
    }
}

/// An import batch's statements on the SQLite connection that holds its transaction.
struct SQLiteImportTransaction: ImportTransaction {
    let db: SQLiteConnection

    func progress(appID: String, importID: String) throws -> ImportProgress? {
        try db.query(
            """
            SELECT import_id, profile, rows_done, imported, updated, unchanged, rejected, created_at, updated_at
            FROM imports WHERE app_id = ?1 AND import_id = ?2
            """, [.text(appID), .text(importID)]
        ) { row in
            ImportProgress(
                importID: row.text(at: 0), profile: row.text(at: 1), rowsDone: Int(row.int64(at: 2)),
                imported: Int(row.int64(at: 3)), updated: Int(row.int64(at: 4)), unchanged: Int(row.int64(at: 5)),
                rejected: Int(row.int64(at: 6)), createdAt: row.int64(at: 7), updatedAt: row.int64(at: 8))
        }.first
    }

    func save(_ progress: ImportProgress, appID: String) throws {
        try db.run(
            """
            INSERT INTO imports (app_id, import_id, profile, rows_done, imported, updated, unchanged, rejected,
                created_at, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (app_id, import_id) DO UPDATE SET rows_done = excluded.rows_done,
                imported = excluded.imported, updated = excluded.updated, unchanged = excluded.unchanged,
                rejected = excluded.rejected, updated_at = excluded.updated_at
            """,
            [
                .text(appID), .text(progress.importID), .text(progress.profile), .integer(Int64(progress.rowsDone)),
                .integer(Int64(progress.imported)), .integer(Int64(progress.updated)),
                .integer(Int64(progress.unchanged)), .integer(Int64(progress.rejected)), .integer(progress.createdAt),
                .integer(progress.updatedAt),
            ])
    }

    func installation(appID: String, installationID: String) throws -> Installation? {
        try SQLiteStore.installation(db, appID: appID, installationID: installationID)
    }

    func upsert(appID: String, installationID: String, update: InstallationUpdate, now: Int64) throws {
        _ = try SQLiteStore.upsertInstallation(db, appID: appID, installationID: installationID, now: now) { _ in
            update
        }
    }

    func tags(appID: String, userID: String) throws -> Set<String> {
        Set(try SQLiteStore.tags(db, appID: appID, userID: userID))
    }

    func addTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws {
        _ = try SQLiteStore.changeTags(db, appID: appID, userID: userID, limits: limits) { $0.union(tags) }
    }

    func isErased(appID: String, digest: [UInt8]) throws -> Bool {
        try db.scalar("SELECT 1 FROM erased_users WHERE app_id = ?1 AND digest = ?2", [.text(appID), .blob(digest)])
            != nil
    }
}
