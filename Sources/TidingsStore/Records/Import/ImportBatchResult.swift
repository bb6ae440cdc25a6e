/// What one ``ImportBatch`` did.
public struct ImportBatchResult: Sendable, Hashable {
    /// Each written or refused row's outcome by row number; rows done by an earlier run are not here.
    public var outcomes: [Int: ImportRowOutcome]
    /// Rows of the part the import had done already (a resumed or repeated run): neither read again nor counted.
    public var skipped: Int
    /// The import after the batch (before it, for a dry run).
    public var progress: ImportProgress

    public init(outcomes: [Int: ImportRowOutcome], skipped: Int, progress: ImportProgress) {
        self.outcomes = outcomes
        self.skipped = skipped
        self.progress = progress
    }
}
