import Foundation

/// What one flush did: the figures the app, the extension and `tidings queue flush` report.
public struct UploadSummary: Sendable, Hashable {
    /// Why the flush ran.
    public var reason: FlushReason
    /// Requests sent.
    public var requests = 0
    /// Events sent, counting an event again each time it is resent.
    public var sent = 0
    /// Events the server stored now (deleted from the queue).
    public var accepted = 0
    /// Events the server already had (deleted from the queue).
    public var duplicates = 0
    /// Events the server refuses for good (dropped alone and counted).
    public var rejected = 0
    /// Events dropped before sending because they were older than the maximum age.
    public var expired = 0
    /// Events still queued when the flush ended (leased or not), or nil if the queue could not be counted.
    public var remaining: Int?
    /// When the next attempt may happen, if the flush stopped to back off.
    public var nextRetryAt: Date?
    /// Why uploading stopped, if it stopped on an error.
    public var error: UploadError?
    /// Whether the flush stopped because its deadline passed.
    public var deadlineReached = false

    public init(reason: FlushReason) {
        self.reason = reason
    }
}
