/// The bounds an event must keep, shared by the SDK (at enqueue) and the server (at ingest).
public struct EventLimits: Sendable, Hashable {
    /// The largest serialised event, in bytes.
    public var maximumEventBytes = 32 * 1024
    /// The longest string field, in UTF-8 bytes (URLs travel in `value`).
    public var maximumFieldBytes = 4096
    /// How far in the future `occurred_at` may be, for clock skew.
    public var maximumFutureSkewMilliseconds: Int64 = 24 * 3600 * 1000
    /// How old an event may be before it is dropped rather than sent.
    public var maximumAgeMilliseconds: Int64 = 30 * 24 * 3600 * 1000
    /// At most this many events in one `POST /v1/events`.
    public var maximumBatchEvents = 500
    /// At most this many bytes in one `POST /v1/events` body.
    public var maximumBatchBytes = 1024 * 1024

    public init() {}

    public static let `default` = EventLimits()
}
