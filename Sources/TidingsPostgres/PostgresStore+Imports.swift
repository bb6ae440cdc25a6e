import TidingsModel
import TidingsStore

extension PostgresStore {
    public func importBatch(_ batch: ImportBatch) throws -> ImportBatchResult {
        let result: ImportBatchResult
        do {
            result = try write { db in try ImportBatchWriter.write(batch, in: PostgresImportTransaction(db: db)) }
        } catch let rollback as ImportDryRunRollback {
            return rollback.result
        }
        installationsCreated(result.outcomes.values.filter { $0 == .imported }.count)
        return result
    }

    public func importProgress(appID: String, importID: String) throws -> ImportProgress? {
        try read { db in try PostgresImportTransaction(db: db).progress(appID: appID, importID: importID) }
    }
}

/// An import batch's statements on the PostgreSQL connection that holds its transaction.
struct PostgresImportTransaction: ImportTransaction {
    let db: PostgresConnection

    func progress(appID: String, importID: String) throws -> ImportProgress? {
        // Locked, so two runs of one import take turns and the second sees the first's cursor.
        try db.query(
            """
            SELECT import_id, profile, rows_done, imported, updated, unchanged, rejected, created_at, updated_at
            FROM imports WHERE app_id = $1 AND import_id = $2\(db.inTransaction ? " FOR UPDATE" : "")
            """, [.text(appID), .text(importID)]
        ) { row in
            ImportProgress(
                importID: row.text(0), profile: row.text(1), rowsDone: Int(row.int64(2)), imported: Int(row.int64(3)),
                updated: Int(row.int64(4)), unchanged: Int(row.int64(5)), rejected: Int(row.int64(6)),
                createdAt: row.int64(7), updatedAt: row.int64(8))
        }.first
    }

    func save(_ progress: ImportProgress, appID: String) throws {
        try db.run(
            """
            INSERT INTO imports (app_id, import_id, profile, rows_done, imported, updated, unchanged, rejected,
                created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
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
        try PostgresStore.installation(db, appID: appID, installationID: installationID, forUpdate: true)
    }

    /// The upsert's write for one installation in this transaction: a token it takes is taken from the app's
    /// other installations, and a token new or presented again is registered now, as in a group's upsert.
    ///
    /// An installation found absent and created by another transaction before it is inserted (the device
    /// registering during the import) is read again and the update applied to it, not written over it.
    func upsert(appID: String, installationID: String, update: InstallationUpdate, now: Int64) throws {
        for _ in 0..<3 {
            if try upsertOnce(appID: appID, installationID: installationID, update: update, now: now) { return }
        }
        throw PostgresUpsert.createdMeanwhile
    }

    /// ``upsert(appID:installationID:update:now:)`` on the installation as read now.
    /// - Returns: false when it was found absent and created by another transaction since: nothing was written.
    private func upsertOnce(appID: String, installationID: String, update: InstallationUpdate, now: Int64) throws
        -> Bool
    {
        let existing = try installation(appID: appID, installationID: installationID)
        var installation = update.applied(
            to: existing ?? Installation(appID: appID, installationID: installationID, createdAt: now, updatedAt: now))
        installation.updatedAt = now
        for kind in TokenType.allCases {
            if installation.token(kind) == nil {
                installation.tokenRegisteredAt[kind] = nil
            } else if update.presents(kind) || installation.token(kind) != existing?.token(kind) {
                installation.tokenRegisteredAt[kind] = now
            }
            guard let token = installation.token(kind), token != existing?.token(kind) else { continue }
            let column = kind.rawValue
            try db.run(
                """
                UPDATE installations
                SET \(column)_token = NULL, \(column)_token_registered_at = NULL, updated_at = $4
                WHERE app_id = $1 AND \(column)_token = $2 AND installation_id <> $3
                """, [.text(appID), .text(token), .text(installationID), .integer(now)])
        }
        guard existing != nil else { return try PostgresStore.insert(installation, db) }
        try PostgresStore.write(installation, db)
        return true
    }

    func tags(appID: String, userID: String) throws -> Set<String> {
        Set(try PostgresStore.tags(db, appID: appID, userID: userID))
    }

    func addTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws {
        _ = try PostgresStore.changeTags(db, appID: appID, userID: userID, limits: limits) { $0.union(tags) }
    }

    func isErased(appID: String, digest: [UInt8]) throws -> Bool {
        try db.scalar("SELECT 1 FROM erased_users WHERE app_id = $1 AND digest = $2", [.text(appID), .bytes(digest)])
            != nil
    }
}
