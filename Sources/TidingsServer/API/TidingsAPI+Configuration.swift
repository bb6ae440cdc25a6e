import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsStore

extension TidingsAPI {
    /// The API's limits and defaults.
    public struct Configuration: Sendable {
        /// Tag format and counts.
        public var tagLimits = TagLimits.default
        /// Custom attributes per installation: count, key and value sizes.
        public var attributeLimits = AttributeLimits()
        /// Event sizes, batch count and bytes.
        public var eventLimits = EventLimits.default
        /// Page size when a list request gives no `limit`.
        public var defaultPageSize = 100
        /// The largest `limit` a list request may ask for.
        public var maximumPageSize = 1000
        /// The largest `limit` of an NDJSON or CSV export of `GET /v1/events` (the body is built in memory).
        public var maximumExportRows = 100_000
        /// The largest JSON body of the installation and tag endpoints, in bytes.
        public var maximumBodyBytes = 64 * 1024
        /// How long a key lookup (and an app's settings and identity keys) is remembered at most. A change made
        /// through the store drops the entry at once on this instance, and on PostgreSQL on every other instance
        /// as soon as its listener hears it (docs/postgres.md); this lifetime bounds staleness when that
        /// announcement is missed. Zero looks every key up on every request.
        public var keyCacheSeconds: Double = 2
        /// The largest body of `POST /v1/messages`, in bytes (a list target may name 10,000 ids).
        public var maximumMessageBodyBytes = 1024 * 1024
        /// How long a message lives when it gives neither `expiration` nor `ttl`; zero sends it now or never.
        public var defaultTimeToLive = MessageRequest.defaultTimeToLive
        /// Hosts whose media a message may name with `http://` (a local media server); others need https.
        public var insecureMediaHosts: Set<String> = []
        /// Where APNs keys and FCM service accounts are kept when ``credentialBacking`` is nil (files under a data
        /// directory); with neither, the administration API's credential routes answer 503
        /// `no_credentials_directory`.
        public var credentialsDirectory: URL?
        /// Keeps the credentials in the store instead, shared by every instance (tidingsd sets
        /// ``StoreCredentialBacking``).
        public var credentialBacking: (any CredentialBacking)?
        /// What each key may send, by kind: a bucket per key. An app's `requests_per_second` replaces the rate
        /// (burst twice the rate) for its app and server keys. App keys are shared by every device of an app,
        /// so theirs is high; it stops a runaway or abusive client, not ordinary traffic.
        public var keyRateLimits = KeyRateLimits()
        /// Failed authentications a client address may make: past it every request from the address is
        /// refused with 429 until tokens come back, so keys cannot be guessed at speed.
        public var failedAuthenticationLimit = RateLimit(burst: 20, perSecond: 1)
        /// Where each key's rate is shared with the other instances on the store: past its own bucket, a request
        /// also takes a token leased in batches from the key's schedule in the store (``SharedRateSchedule``), so
        /// a key keeps to its rate however requests are spread. tidingsd sets it on PostgreSQL; nil (one
        /// instance) leaves each key its bucket here alone. The failed-authentication limit stays per instance.
        public var sharedRates: (any RateSlotSource)?
        /// The proxies whose `X-Forwarded-For` (or `Forwarded`) names the client address that limits, logs and
        /// the audit log use; none by default, so the TCP peer is the client.
        public var trustedProxies = TrustedProxies()
        /// Console sessions: timeouts, the cookie's `Secure`, accepted origins, sign-in limits.
        public var consoleSessions = ConsoleSessionSettings()
        /// Whether writes made with app keys are audited too (`--audit-app-keys`). Off by default: an app key is
        /// public, shared by every device, so its entries name no one, and device traffic (registrations,
        /// event batches) would be most of the log.
        public var auditsAppKeyWrites = false

        /// The tidingsd instance serving the API (``ClusterMembership``): the resolver that resolves a message's
        /// first chunk inline is named under it, so that the instance's silence or retirement frees what it
        /// held. Nil: a name of its own.
        public var instanceID: String?

        /// `POST /v1/live-activities`: the priority-10 budget, recipients per request, concurrency, retries.
        public var liveActivities = LiveActivityLimits()

        public init() {}
    }
}
