import TidingsModel

/// One destination an app's events are forwarded to: where, what passes, whether it runs, and how far it got.
///
/// The cursor is the events table's sequence number (`seq`): every event after it is still to be sent.
/// Settings hold the destination's parameters, its secrets (a Treasure Data write key, a webhook signing
/// secret) included; the administration API never shows those back.
public struct ForwarderRecord: Sendable, Hashable {
    /// Where the events go.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case treasureData = "treasure_data"
        case webhook
        case file
    }

    /// Whether the worker sends.
    public enum State: String, Sendable, Hashable {
        case active
        case paused
    }

    /// What passes to the destination and which fields leave with it.
    public struct Filter: Sendable, Hashable {
        /// Only these event types (wire names); empty means every type.
        public var eventTypes: [String]
        /// Only events of these campaigns; empty means every event, with a campaign or not.
        public var campaigns: [String]
        /// Fields removed from every event before it leaves (`user_id` for a destination that must not get
        /// personal data).
        public var droppedFields: [String]

        public init(eventTypes: [String] = [], campaigns: [String] = [], droppedFields: [String] = []) {
            self.eventTypes = eventTypes
            self.campaigns = campaigns
            self.droppedFields = droppedFields
        }
    }

    /// A time range being replayed alongside the live stream.
    public struct Backfill: Sendable, Hashable {
        /// `occurred_at` at or after, unix milliseconds.
        public var since: Int64
        /// `occurred_at` before, unix milliseconds.
        public var until: Int64
        /// The last sequence number of the range already sent.
        public var cursor: Int64

        public init(since: Int64, until: Int64, cursor: Int64 = 0) {
            self.since = since
            self.until = until
            self.cursor = cursor
        }
    }

    public var id: String
    public var appID: String
    public var kind: Kind
    /// The destination's parameters as a JSON object, secrets included.
    public var settings: [String: JSONValue]
    public var filter: Filter
    public var state: State
    /// The sequence number of the last event handled (sent, filtered out or dead-lettered).
    public var cursor: Int64
    public var createdAt: Int64
    /// When the destination started failing without a success since, unix milliseconds; nil when healthy.
    public var failingSince: Int64?
    /// The last failure, in words safe to show (no secrets).
    public var lastError: String?
    /// When a batch last reached the destination, unix milliseconds.
    public var lastSuccessAt: Int64?
    public var backfill: Backfill?

    public init(
        id: String, appID: String, kind: Kind, settings: [String: JSONValue], filter: Filter = Filter(),
        state: State = .active, cursor: Int64 = 0, createdAt: Int64, failingSince: Int64? = nil,
        lastError: String? = nil, lastSuccessAt: Int64? = nil, backfill: Backfill? = nil
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.settings = settings
        self.filter = filter
        self.state = state
        self.cursor = cursor
        self.createdAt = createdAt
        self.failingSince = failingSince
        self.lastError = lastError
        self.lastSuccessAt = lastSuccessAt
        self.backfill = backfill
    }
}
