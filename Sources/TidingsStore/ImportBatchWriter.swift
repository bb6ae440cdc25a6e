import TidingsModel

/// The one way both backends write an ``ImportBatch``, inside the transaction the backend opened.
///
/// A row is checked whole before anything of it is written (its user's tombstone, its installations'
/// attribute count, its user's tag limits), so a refused row leaves nothing behind without a savepoint.
package enum ImportBatchWriter {
    package static func write(_ batch: ImportBatch, in transaction: some ImportTransaction) throws -> ImportBatchResult
    {
        let stored = try transaction.progress(appID: batch.appID, importID: batch.importID)
        var progress =
            stored
            ?? ImportProgress(
                importID: batch.importID, profile: batch.profile, createdAt: batch.now, updatedAt: batch.now)
        // A dry run checks the whole part whatever was done before, and leaves the cursor where it is.
        let done = batch.dryRun ? batch.firstRow - 1 : progress.rowsDone
        if !batch.dryRun, stored != nil {
            guard progress.profile == batch.profile else {
                throw StoreError(
                    code: .conflict,
                    message:
                        "import \(batch.importID) was started with profile \(progress.profile), not \(batch.profile)")
            }
        }
        guard batch.firstRow <= done + 1 else {
            throw StoreError(
                code: .conflict,
                message:
                    "import \(batch.importID) has done rows up to \(done); send from row \(done + 1), not \(batch.firstRow)"
            )
        }
        var outcomes: [Int: ImportRowOutcome] = [:]
        for row in batch.rows where row.number > done {
            outcomes[row.number] = try write(row, batch: batch, in: transaction)
        }
        var result = ImportBatchResult(
            outcomes: outcomes, skipped: max(0, min(batch.endRow, done + 1) - batch.firstRow), progress: progress)
        for outcome in outcomes.values {
            switch outcome {
            case .imported: progress.imported += 1
            case .updated: progress.updated += 1
            case .unchanged: progress.unchanged += 1
            case .rejected: progress.rejected += 1
            }
        }
        progress.rejected += batch.rejectedBeforeStore.filter { $0 > done }.count
        progress.rowsDone = max(progress.rowsDone, batch.endRow - 1)
        progress.updatedAt = batch.now
        if batch.dryRun {
            result.progress = progress
            throw ImportDryRunRollback(result: result)
        }
        try transaction.save(progress, appID: batch.appID)
        result.progress = progress
        return result
    }

    private static func write(_ row: ImportRow, batch: ImportBatch, in transaction: some ImportTransaction) throws
        -> ImportRowOutcome
    {
        let appID = batch.appID
        if let digest = row.userDigest, try transaction.isErased(appID: appID, digest: digest) {
            return .rejected(
                column: row.userColumn, rule: "user_erased",
                message:
                    "\(row.userColumn) names a user whose data was erased; an import never binds an erased user again")
        }
        var created = false
        var changed = false
        var writes: [ImportRow.Item] = []
        for item in row.items {
            let existing = try transaction.installation(appID: appID, installationID: item.installationID)
            let after = item.update.attributes(after: existing?.attributes ?? [:])
            if !item.update.attributes.isEmpty || item.update.clearsAttributes,
                after.count > batch.attributeLimits.maximumCount
            {
                return .rejected(
                    column: row.attributesColumn, rule: "too_many_attributes",
                    message:
                        "an installation may have at most \(batch.attributeLimits.maximumCount) attributes; this row would give \(after.count)"
                )
            }
            guard var existing else {
                created = true
                writes.append(item)
                continue
            }
            var updated = item.update.applied(to: existing)
            updated.updatedAt = existing.updatedAt
            existing.tokenRegisteredAt = updated.tokenRegisteredAt
            if updated != existing {
                changed = true
                writes.append(item)
            }
        }
        if let userID = row.userID, !row.tags.isEmpty {
            let added = row.tags.subtracting(try transaction.tags(appID: appID, userID: userID))
            if !added.isEmpty {
                do {
                    try transaction.addTags(appID: appID, userID: userID, tags: added, limits: batch.tagLimits)
                } catch let error as StoreError where error.code == .limitExceeded {
                    let rule = error.message.contains("distinct") ? "too_many_distinct_tags" : "too_many_tags"
                    return .rejected(column: row.tagsColumn, rule: rule, message: error.message)
                }
                changed = true
            }
        }
        for item in writes {
            try transaction.upsert(
                appID: appID, installationID: item.installationID, update: item.update, now: batch.now)
        }
        return created ? .imported : changed ? .updated : .unchanged
    }
}
