/// Where the API reports what it did, for the metrics registry; every method has a no-op default.
///
/// The server wires an implementation that increments its counters; tests may record calls.
public protocol APIMetrics: Sendable {
    /// One `POST /v1/events` batch was answered with these receipt counts.
    func eventsIngested(accepted: Int, duplicate: Int, rejected: Int)
    /// One installation was created or changed.
    func installationUpserted(created: Bool)
    /// A request was refused for its credentials (401) or its rights (403).
    func authenticationFailed(status: Int)
    /// A request was refused 429: its key over its rate, or its address after too many failed authentications.
    func rateLimited()
}

extension APIMetrics {
    public func eventsIngested(accepted: Int, duplicate: Int, rejected: Int) {}
    public func installationUpserted(created: Bool) {}
    public func authenticationFailed(status: Int) {}
    public func rateLimited() {}
}

/// Reports nothing.
public struct NoAPIMetrics: APIMetrics {
    public init() {}
}
