/// What the uploader remembers between attempts: the input and output of ``RetryPolicy``.
public struct RetryState: Sendable, Hashable {
    /// Failed attempts since the last success; the exponent of the backoff.
    public var consecutiveFailures: Int
    /// How many events the next batch may hold; halved by 413 and 400, doubled back by successes.
    public var batchLimit: Int
    /// No request before this time (milliseconds since 1970), or nil to send at once.
    public var notBefore: Int64?

    public init(consecutiveFailures: Int = 0, batchLimit: Int, notBefore: Int64? = nil) {
        self.consecutiveFailures = consecutiveFailures
        self.batchLimit = batchLimit
        self.notBefore = notBefore
    }
}
