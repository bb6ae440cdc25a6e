import TidingsModel

/// A part of an import file written in one transaction with the import's cursor (``ImportProgress``).
public struct ImportBatch: Sendable {
    public var appID: String
    /// Chosen by the caller (`tidings import` derives it from the file): the same id resumes the same import.
    public var importID: String
    public var profile: String
    /// The number of the part's first row; rows before the import's cursor were written already and are skipped.
    public var firstRow: Int
    /// How many rows the part holds, those refused before the store included (``rejectedBeforeStore``).
    public var rowCount: Int
    /// The part's rows that passed the checks that need no store, in file order.
    public var rows: [ImportRow]
    /// The numbers of the part's rows refused before the store (a malformed value): counted, not written.
    public var rejectedBeforeStore: [Int]
    public var tagLimits: TagLimits
    public var attributeLimits: AttributeLimits
    /// Runs every check and write, answers what would happen, then rolls back: nothing changes, the cursor neither.
    public var dryRun: Bool
    public var now: Int64

    public init(
        appID: String, importID: String, profile: String, firstRow: Int, rowCount: Int, rows: [ImportRow],
        rejectedBeforeStore: [Int], tagLimits: TagLimits = .default,
        attributeLimits: AttributeLimits = AttributeLimits(),
        dryRun: Bool = false, now: Int64
    ) {
        self.appID = appID
        self.importID = importID
        self.profile = profile
        self.firstRow = firstRow
        self.rowCount = rowCount
        self.rows = rows
        self.rejectedBeforeStore = rejectedBeforeStore
        self.tagLimits = tagLimits
        self.attributeLimits = attributeLimits
        self.dryRun = dryRun
        self.now = now
    }

    /// The number after the part's last row.
    public var endRow: Int { firstRow + rowCount }
}
