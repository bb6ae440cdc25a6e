import TidingsModel

extension EventStore {
    /// How an event store is bounded and tuned. Every value has a default that suits an app.
    ///
    /// ```swift
    /// var configuration = EventStore.Configuration()
    /// configuration.maximumEvents = 5_000
    /// let store = try EventStore(directory: appGroupURL, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The file name inside the directory given to ``EventStore/init(directory:configuration:clock:logger:)``.
        public var fileName = "tidings-events.sqlite"
        /// At most this many events wait; beyond it the oldest are dropped and counted (`queue_full`).
        public var maximumEvents = 10_000
        /// At most this many bytes of event JSON wait; beyond it the oldest are dropped and counted.
        public var maximumBytes = 5 * 1024 * 1024
        /// How long leased rows stay out of other leases when the uploader neither settles nor releases them.
        public var leaseDuration: Duration = .seconds(120)
        /// How long a delivered message is remembered, so that `delivery` is recorded once per message.
        public var deliveryMemory: Duration = .seconds(7 * 24 * 3600)
        /// The limits events are validated against at enqueue.
        public var limits = EventLimits.default
        /// Commit the events of concurrent callers in one transaction (see ``EventStore`` on group commit).
        public var groupCommit = true
        /// Copy the write-ahead log into the database on a background queue, shortly after writes stop,
        /// rather than inside whichever enqueue crosses SQLite's threshold (which then waits for an `fsync`).
        /// SQLite's own checkpoint stays on at a higher threshold, so sustained writing keeps the log bounded.
        public var checkpointInBackground = true
        /// How hard a commit is pushed to the disk.
        public var durability = Durability.crashSafe
        /// How long a writer waits for the other process (app or extension) to release the write lock.
        public var busyTimeout: Duration = .seconds(5)
        /// Create the store (and its directory) when missing; tools that only inspect set this to false.
        public var createIfMissing = true

        public init() {}
    }

    /// What a committed event survives.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// Survives the app or the extension being killed at any moment (SQLite WAL, `synchronous=NORMAL`).
        /// A power loss may lose the last commits, never corrupt the store.
        case crashSafe
        /// Also survives power loss: every commit waits for `fsync` (SQLite `synchronous=FULL`).
        case powerSafe
    }
}
