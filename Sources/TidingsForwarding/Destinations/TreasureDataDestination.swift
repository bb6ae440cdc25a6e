import TidingsModel
import TidingsPush

/// Writes batches as rows of a Treasure Data table through TD's streaming ingest API:
/// `POST <endpoint>/<database>/<table>` with `Authorization: TD1 <write key>`, content type
/// `application/vnd.treasuredata.v1+json` and the body `{"records": [row, ...]}`, at most 500 records a
/// request. Rows have the push-events shape of ``TreasureDataRow``.
///
/// The write key goes in the header only: it is never logged, never in an error and never shown back.
public struct TreasureDataDestination: ForwardingDestination {
    /// TD's regional ingest endpoints.
    public enum Region: String, Sendable, CaseIterable {
        case us01, eu01, ap01, ap02, ap03

        public var endpoint: String { "https://\(rawValue).records.in.treasuredata.com" }
    }

    /// The content type TD's ingest API takes for a batch of records.
    public static let contentType = "application/vnd.treasuredata.v1+json"
    /// TD's limit on records a request.
    public static let maximumRecords = 500

    public let endpoint: String
    public let database: String
    public let table: String
    private let writeKey: String
    private let client: any ForwardingHTTPClient
    private let timeout: Duration
    public var maximumBatchSize: Int { Self.maximumRecords }
    public var takesBatchesSideBySide: Bool { true }

    public init(
        endpoint: String, database: String, table: String, writeKey: String, client: any ForwardingHTTPClient,
        timeout: Duration = .seconds(30)
    ) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.database = database
        self.table = table
        self.writeKey = writeKey
        self.client = client
        self.timeout = timeout
    }

    /// `<endpoint>/<database>/<table>`.
    public var url: String { "\(endpoint)/\(database)/\(table)" }

    /// The request body for `batch`: `{"records": [...]}`.
    public static func body(_ batch: ForwardingBatch) -> [UInt8] {
        Array(JSONText.data(["records": .array(batch.events.map { .object(TreasureDataRow.row($0)) })]))
    }

    public func deliver(_ batch: ForwardingBatch) async throws(ForwardingFailure) {
        guard batch.events.count <= Self.maximumRecords else {
            throw ForwardingFailure(
                kind: .permanent,
                message: "a batch of \(batch.events.count) events exceeds TD's \(Self.maximumRecords) records a request"
            )
        }
        let request = HTTP2Request(
            method: "POST", url: url,
            headers: [
                ("content-type", Self.contentType), ("accept", "application/json"),
                ("authorization", "TD1 \(writeKey)"),
            ], body: Self.body(batch), timeout: timeout)
        try await client.deliver(request)
    }

    public func close() {}
}
