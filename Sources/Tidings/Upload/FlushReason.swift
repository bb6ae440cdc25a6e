/// Why a flush started, for logs and for the summary.
public enum FlushReason: String, Sendable, Hashable, CaseIterable {
    /// The app or the CLI asked.
    case explicit
    /// The queue reached the count threshold.
    case threshold
    /// The periodic timer fired (or a backoff ended).
    case interval
    /// The app is going to the background.
    case background
    /// The Notification Service Extension's short best-effort flush.
    case deadline
}
