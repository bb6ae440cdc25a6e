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
    public var takesBatchesSideBySide: Bool { true }

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

    /// The request body for `batch`: `{"app_id", "batch_id", "events": [...], "forwarder_id"}`, keys sorted,
    /// each event written straight from its row.
    public static func body(_ batch: ForwardingBatch) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + batch.events.count * 320)
        bytes.append(contentsOf: #"{"app_id":"#.utf8)
        JSONText.writeString(batch.appID, into: &bytes)
        bytes.append(contentsOf: #","batch_id":"#.utf8)
        JSONText.writeString(batch.id, into: &bytes)
        bytes.append(contentsOf: #","events":["#.utf8)
        for (index, event) in batch.events.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            event.write(into: &bytes)
        }
        bytes.append(contentsOf: #"],"forwarder_id":"#.utf8)
        JSONText.writeString(batch.forwarderID, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
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
