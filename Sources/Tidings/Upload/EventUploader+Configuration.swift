import Foundation

extension EventUploader {
    /// How the uploader talks to `tidingsd` and when it sends; defaults follow docs/events.md.
    public struct Configuration: Sendable {
        /// The server's base URL; events go to `{endpoint}/v1/events`.
        public var endpoint: URL
        /// The app key sent as `Authorization: Bearer`. Never logged.
        public var appKey: String
        /// At most this many events per request (the server's limit is 500).
        public var maximumBatchEvents = EventLimits.default.maximumBatchEvents
        /// At most this many body bytes per request (the server's limit is 1 MiB).
        public var maximumBatchBytes = EventLimits.default.maximumBatchBytes
        /// ``EventUploader/notifyEnqueued()`` flushes once this many events wait.
        public var flushThreshold = 50
        /// The periodic timer's period, once ``EventUploader/start()`` is called.
        public var flushInterval: Duration = .seconds(30)
        /// Events older than this are dropped (counted) instead of sent.
        public var maximumEventAge: Duration = .milliseconds(EventLimits.default.maximumAgeMilliseconds)
        /// The first backoff step.
        public var baseRetryDelay: Duration = .seconds(1)
        /// The longest backoff.
        public var maximumRetryDelay: Duration = .seconds(300)
        /// How long one request may take.
        public var requestTimeout: Duration = .seconds(30)
        /// Sent in `User-Agent: Tidings-iOS/<sdkVersion>`.
        public var sdkVersion = "0.1.0"
        /// Where the uploader logs; disabled by default.
        public var logger = Logger.disabled(label: "tidings.upload")

        public init(endpoint: URL, appKey: String) {
            self.endpoint = endpoint
            self.appKey = appKey
        }

        /// `{endpoint}/v1/events`.
        public var eventsURL: URL { endpoint.appendingPathComponent("v1").appendingPathComponent("events") }

        /// `Tidings-iOS/<sdkVersion>`.
        public var userAgent: String { "Tidings-iOS/\(sdkVersion)" }

        /// The retry policy these settings describe.
        public var retryPolicy: RetryPolicy {
            RetryPolicy(
                baseDelayMilliseconds: baseRetryDelay.milliseconds,
                maximumDelayMilliseconds: maximumRetryDelay.milliseconds,
                maximumBatchEvents: maximumBatchEvents)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
