/// One page of `GET /v1/events` as NDJSON or CSV, exactly as the server wrote it.
struct EventExport: Sendable, Hashable {
    /// The export formats the server streams, chosen by `Accept`.
    enum Format: String, Sendable, CaseIterable {
        case ndjson
        case csv

        var mediaType: String {
            switch self {
            case .ndjson: "application/x-ndjson"
            case .csv: "text/csv"
            }
        }
    }

    /// Lines of events; a CSV page starts with its header line.
    var body: [UInt8]
    /// The cursor of the next page (`X-Next-Cursor`); nil on the last page.
    var nextCursor: String?
}
