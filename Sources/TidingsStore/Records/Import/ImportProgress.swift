/// An import's cursor and counts, committed with each of its batches: after a crash the import goes on from
/// ``rowsDone`` and no accepted row is lost or written twice.
public struct ImportProgress: Sendable, Hashable {
    public var importID: String
    public var profile: String
    /// Rows 1...rowsDone are done (written or refused).
    public var rowsDone: Int
    public var imported: Int
    public var updated: Int
    public var unchanged: Int
    public var rejected: Int
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        importID: String, profile: String, rowsDone: Int = 0, imported: Int = 0, updated: Int = 0, unchanged: Int = 0,
        rejected: Int = 0, createdAt: Int64, updatedAt: Int64
    ) {
        self.importID = importID
        self.profile = profile
        self.rowsDone = rowsDone
        self.imported = imported
        self.updated = updated
        self.unchanged = unchanged
        self.rejected = rejected
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
