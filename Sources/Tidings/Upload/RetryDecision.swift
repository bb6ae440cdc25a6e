/// The retry policy's verdict after one attempt: what to do next, and the state to carry forward.
public struct RetryDecision: Sendable, Hashable {
    /// What the uploader does next.
    public enum Action: Sendable, Hashable {
        /// Settle the receipts and go on with the next batch at once.
        case proceed
        /// Keep every unsettled event and send nothing before `at` (milliseconds since 1970).
        case retryLater(at: Int64)
        /// Release the batch and send again at once with fewer events (``RetryState/batchLimit`` is lowered).
        case shrinkBatch
        /// The batch is a single event the server will never take: drop it alone, counted under `reason`.
        case rejectEvent(reason: String)
        /// Stop uploading, keeping everything, until the app resumes the uploader.
        case halt(UploadError)
    }

    public var action: Action
    public var state: RetryState

    public init(action: Action, state: RetryState) {
        self.action = action
        self.state = state
    }
}
