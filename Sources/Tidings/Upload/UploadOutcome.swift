/// What one upload attempt came to, as the retry policy sees it.
public enum UploadOutcome: Sendable, Hashable {
    /// A 2xx with readable receipts. `missing` counts the events of the batch that got no receipt.
    case receipts(missing: Int)
    /// A 2xx whose body is not a receipt list: nothing is known, so everything is kept.
    case unreadableResponse
    /// Any non-2xx status; `retryAfter` is the `Retry-After` header resolved to milliseconds since 1970.
    case status(Int, retryAfter: Int64?)
    /// No response at all.
    case transportFailure(TransportError.Code)
}
