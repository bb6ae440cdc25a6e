import Foundation
import TidingsModel
import TidingsPush

/// Posts batches of events as JSON to an HTTPS URL, each request signed (``WebhookSignature``).
///
/// The body is `{"batch_id", "app_id", "forwarder_id", "events": [...]}`, every event carrying its
/// `event_id` (the idempotency key); the batch id is also in `Idempotency-Key`. Any 2xx is success.
public struct WebhookDestination: ForwardingDestination {
    public let url: String
    private let secret: String
    private let client: any ForwardingHTTPClient
    private let timeout: Duration
    private let clock: any TidingsClock
    public let maximumBatchSize: Int

    public init(
        url: String, secret: String, client: any ForwardingHTTPClient, timeout: Duration = .seconds(30),
        maximumBatchSize: Int = 500, clock: any TidingsClock = SystemClock()
    ) {
        self.url = url
        self.secret = secret
        self.client = client
        self.timeout = timeout
        self.maximumBatchSize = maximumBatchSize
        self.clock = clock
    }

    /// The request body for `batch`.
    public static func body(_ batch: ForwardingBatch) -> [UInt8] {
        Array(
            JSONText.data([
                "batch_id": .string(batch.id), "app_id": .string(batch.appID),
                "forwarder_id": .string(batch.forwarderID),
                "events": .array(batch.events.map { .object($0.fields) }),
            ]))
    }

    public func deliver(_ batch: ForwardingBatch) async throws(ForwardingFailure) {
        let body = Self.body(batch)
        let timestamp = Int64(clock.now.timeIntervalSince1970)
        let request = HTTP2Request(
            method: "POST", url: url,
            headers: [
                ("content-type", "application/json"),
                ("idempotency-key", batch.id),
                ("tidings-batch-id", batch.id),
                (
                    WebhookSignature.headerName.lowercased(),
                    WebhookSignature.header(secret: secret, timestamp: timestamp, body: body)
                ),
            ], body: body, timeout: timeout)
        try await client.deliver(request)
    }

    public func close() {}
}
