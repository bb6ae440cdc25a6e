import Foundation

/// The JSON body of an APNs error: `{"reason":"Unregistered","timestamp":1700000000000}`.
struct APNsErrorBody: Hashable {
    var reason: String?
    /// Milliseconds since 1970 (410 answers only).
    var timestamp: Int64?

    /// Parses `bytes`; an empty or malformed body yields no reason rather than an error.
    init(_ bytes: [UInt8]) {
        guard !bytes.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return }
        reason = object["reason"] as? String
        if let number = object["timestamp"] as? NSNumber {
            timestamp = number.int64Value
        } else if let text = object["timestamp"] as? String {
            timestamp = Int64(text)
        }
    }
}
