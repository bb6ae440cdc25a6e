/// How an import file is written: CSV with a header row (RFC 4180), or one JSON object per line.
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv
    case ndjson

    /// The format a file name's extension says; nil when it says none of them.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".csv") {
            self = .csv
        } else if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") {
            self = .ndjson
        } else {
            return nil
        }
    }

    /// The media type a part of the file is sent with.
    public var mediaType: String {
        switch self {
        case .csv: "text/csv"
        case .ndjson: "application/x-ndjson"
        }
    }
}
