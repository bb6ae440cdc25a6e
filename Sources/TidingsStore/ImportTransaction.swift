import TidingsModel

/// What ``ImportBatchWriter`` needs of a backend inside the transaction of one batch.
package protocol ImportTransaction {
    func progress(appID: String, importID: String) throws -> ImportProgress?
    func save(_ progress: ImportProgress, appID: String) throws
    func installation(appID: String, installationID: String) throws -> Installation?
    /// The same write as ``Store/upsertInstallation(appID:installationID:now:prepare:)``, tokens moved included.
    func upsert(appID: String, installationID: String, update: InstallationUpdate, now: Int64) throws
    func tags(appID: String, userID: String) throws -> Set<String>
    /// Adds tags as ``Store/addTags(appID:userID:tags:limits:)`` does.
    /// - Throws: ``StoreError/Code/limitExceeded`` naming the limit, having written nothing.
    func addTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws
    func isErased(appID: String, digest: [UInt8]) throws -> Bool
}
