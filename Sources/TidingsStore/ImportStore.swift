/// Bulk import of installations, users, tags and attributes (`POST /v1/imports/{import_id}`), batch by batch.
///
/// Each batch is one transaction with the import's cursor, so a crash loses no accepted row and a resumed
/// import skips what is done; each row is all or nothing. ``Store`` refines this protocol; both backends
/// implement it with ``ImportBatchWriter``.
public protocol ImportStore: Sendable {
    /// Writes the rows of `batch` after the import's cursor and moves the cursor past the batch.
    /// - Throws: ``StoreError/Code/conflict`` when the batch starts after the cursor's next row (a part is
    ///   missing) or the import was started with another profile.
    func importBatch(_ batch: ImportBatch) throws -> ImportBatchResult
    /// The import's cursor and counts; nil when no batch of it was written.
    func importProgress(appID: String, importID: String) throws -> ImportProgress?
}
