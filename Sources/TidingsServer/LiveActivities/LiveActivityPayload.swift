import Foundation
import TidingsModel

/// Builds the APNs payload of an ActivityKit push from a ``LiveActivityRequest``:
///
/// ```json
/// {"aps": {"timestamp": 1800000000, "event": "update", "content-state": {"eta": 5},
///          "stale-date": 1800000600, "relevance-score": 50}}
/// ```
///
/// - Important: ActivityKit decodes `content-state` (and, to start, `attributes`) into the app's
///   `ActivityAttributes` types with default `JSONDecoder` settings: keys must match the Swift property
///   names, and extra keys are ignored.
public enum LiveActivityPayload {
    /// Apple's limit for a Live Activity push payload, in bytes (as for alerts).
    public static let maximumBytes = 4096

    /// The payload bytes.
    /// - Throws: ``LiveActivityError/Code/payloadTooLarge`` naming the size and the limit.
    public static func build(_ request: LiveActivityRequest) throws(LiveActivityError) -> [UInt8] {
        var aps: [String: JSONValue] = [
            "timestamp": .integer(request.timestamp), "event": .string(request.event.rawValue),
        ]
        if let contentState = request.contentState { aps["content-state"] = .object(contentState) }
        if let staleDate = request.staleDate { aps["stale-date"] = .integer(staleDate) }
        if let dismissalDate = request.dismissalDate { aps["dismissal-date"] = .integer(dismissalDate) }
        if let relevanceScore = request.relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let alert = request.alert { aps["alert"] = .object(alert) }
        if request.event == .start {
            if let attributesType = request.attributesType { aps["attributes-type"] = .string(attributesType) }
            if let attributes = request.attributes { aps["attributes"] = .object(attributes) }
        }
        let bytes = Array(JSONText.data(.object(["aps": .object(aps)])))
        guard bytes.count <= maximumBytes else {
            throw LiveActivityError(
                code: .payloadTooLarge, field: request.event == .start ? "attributes" : "content_state",
                message: "the Live Activity payload is \(bytes.count) bytes; the limit is \(maximumBytes) bytes")
        }
        return bytes
    }
}
