/// One message as stored: what to send (the built payload and APNs options) and where it stands.
public struct MessageRecord: Sendable, Hashable {
    /// Where a message stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Accepted with its deliveries already written (uninstall checks); no delivery claimed yet.
        case queued
        /// Accepted; its audience is resolved from ``MessageRecord/resolveAt`` on.
        case scheduled
        /// A resolver is writing its deliveries in chunks; those already written are being sent.
        case resolving
        /// Workers are sending.
        case sending
        /// No delivery is pending or claimed.
        case done
        /// Cancelled; what was not sent never will be.
        case cancelled
    }

    /// Whether consent rules treat the message as advertising, and whether it is marketing at all.
    public enum MessageType: String, Sendable, Hashable, CaseIterable {
        case notification
        case ad
        /// A message one person is waiting for (a password reset, a receipt): claimed before campaigns, not
        /// held by their rates, and exempt from frequency caps.
        case transactional

        /// Counted against the app's frequency cap.
        public var isMarketing: Bool { self != .transactional }
    }

    /// What happens to an ad that falls into a person's night (21:00–08:00 local) without night-time ad
    /// consent.
    public enum NightPolicy: String, Sendable, Hashable, CaseIterable {
        /// Skipped with reason `night` (the default, as NHN Cloud does).
        case skip
        /// Held until 08:00 in the installation's time zone, then sent; skipped if it expires first.
        case `defer`
    }

    public var id: String
    public var appID: String
    public var state: State
    public var kind: MessageKind
    public var messageType: MessageType
    public var campaignID: String?
    /// The app's bundle id (APNs topic).
    public var topic: String
    /// The native payload, built and size-checked before the message was stored.
    public var payload: [UInt8]
    public var priority: Int
    /// Unix milliseconds after which APNs stops trying; nil delivers now or never.
    public var expiresAt: Int64?
    public var collapseID: String?
    public var nightPolicy: NightPolicy
    /// Unix milliseconds.
    public var createdAt: Int64
    /// When it became `done` or `cancelled`, unix milliseconds.
    public var finishedAt: Int64?
    /// Pushes per second this message may go out at (per sending instance); nil: as fast as the app's ceiling.
    public var ratePerSecond: Int?
    /// What the resolver needs to write the deliveries (audience, schedule, variants, languages), as JSON
    /// the server reads; nil for a message stored with its deliveries.
    public var plan: String?
    /// When resolution may begin, unix milliseconds; nil for a message stored with its deliveries.
    public var resolveAt: Int64?
    /// The payload for each (variant, language) by ``payloadKey(variant:language:)``; ``payload`` is the
    /// one of a delivery without either.
    public var payloadVariants: [String: [UInt8]] = [:]

    /// The key of a payload in ``payloadVariants``.
    public static func payloadKey(variant: String?, language: String?) -> String {
        "\(variant ?? "")/\(language ?? "")"
    }

    /// The payload a delivery with `variant` and `language` gets: its own, else the message's.
    public func payload(variant: String?, language: String?) -> [UInt8] {
        if variant == nil && language == nil { return payload }
        return payloadVariants[Self.payloadKey(variant: variant, language: language)] ?? payload
    }

    public init(
        id: String, appID: String, state: State = .queued, kind: MessageKind, messageType: MessageType = .notification,
        campaignID: String? = nil, topic: String, payload: [UInt8], priority: Int, expiresAt: Int64? = nil,
        collapseID: String? = nil, nightPolicy: NightPolicy = .skip, createdAt: Int64, finishedAt: Int64? = nil,
        plan: String? = nil, resolveAt: Int64? = nil, payloadVariants: [String: [UInt8]] = [:],
        ratePerSecond: Int? = nil
    ) {
        self.ratePerSecond = ratePerSecond
        self.plan = plan
        self.resolveAt = resolveAt
        self.payloadVariants = payloadVariants
        self.nightPolicy = nightPolicy
        self.id = id
        self.appID = appID
        self.state = state
        self.kind = kind
        self.messageType = messageType
        self.campaignID = campaignID
        self.topic = topic
        self.payload = payload
        self.priority = priority
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.createdAt = createdAt
        self.finishedAt = finishedAt
    }
}
