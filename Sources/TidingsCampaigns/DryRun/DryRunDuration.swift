import TidingsModel

/// How long a dry-run send takes at its pace: the message's `rate_per_second` and, unless it is transactional,
/// the app's ceiling, whichever is lower.
public struct DryRunDuration: Sendable, Hashable {
    /// Which rate paces the send.
    public enum Limit: String, Sendable, Hashable {
        case messageRate = "message_rate"
        case appCeiling = "app_ceiling"
        /// No rate applies: pushes go as fast as the provider takes them.
        case none
    }

    /// From the first push to the end of the last one's slot (`1 / rate`); 0 when no rate applies.
    public var seconds: Double
    public var ratePerSecond: Int?
    public var limitedBy: Limit
    /// Unix milliseconds; nil when nothing would be sent.
    public var firstSendAt: Int64?
    public var lastSendAt: Int64?

    public init(
        seconds: Double, ratePerSecond: Int?, limitedBy: Limit, firstSendAt: Int64? = nil, lastSendAt: Int64? = nil
    ) {
        self.seconds = seconds
        self.ratePerSecond = ratePerSecond
        self.limitedBy = limitedBy
        self.firstSendAt = firstSendAt
        self.lastSendAt = lastSendAt
    }

    /// The pace of a message asking for `messageRate` in an app with the ceiling `appRate`; a transactional
    /// message is not held by the app's ceiling (``SendThrottle``).
    public static func pace(messageRate: Int?, appRate: Int?, transactional: Bool) -> (rate: Int?, limit: Limit) {
        let appRate = transactional ? nil : appRate
        switch (messageRate, appRate) {
        case (let message?, let app?): return message <= app ? (message, .messageRate) : (app, .appCeiling)
        case (let message?, nil): return (message, .messageRate)
        case (nil, let app?): return (app, .appCeiling)
        case (nil, nil): return (nil, .none)
        }
    }

    public var json: JSONValue {
        [
            "seconds": .double(seconds), "rate_per_second": ratePerSecond.map { .integer(Int64($0)) } ?? .null,
            "limited_by": .string(limitedBy.rawValue), "first_send_at": firstSendAt.map(JSONValue.integer) ?? .null,
            "last_send_at": lastSendAt.map(JSONValue.integer) ?? .null,
        ]
    }
}
