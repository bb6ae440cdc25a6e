import Foundation
import TidingsModel

/// Builds the HTTP/2 request APNs expects for one push: path `/3/device/{token}` and the `apns-*` headers.
public enum APNsRequestBuilder {
    /// The longest `apns-collapse-id` APNs accepts, in UTF-8 bytes.
    public static let maxCollapseIDBytes = 64

    /// Why a push cannot be turned into a request.
    public struct Refusal: Error, Sendable, Hashable {
        /// Apple's reason string for the same mistake, so statistics read alike.
        public var reason: String
        public var message: String
    }

    /// The request for `push` to `endpoint` (no trailing slash) with `authorization` (`bearer ...`).
    ///
    /// - Throws: ``Refusal`` `BadCollapseId` when the collapse id exceeds 64 bytes or holds a control character,
    ///   `MissingDeviceToken` for an empty token.
    public static func request(
        for push: OutgoingPush, endpoint: String, authorization: String?, timeout: Duration
    ) throws(Refusal) -> HTTP2Request {
        if let collapseID = push.collapseID, collapseID.utf8.count > maxCollapseIDBytes {
            throw Refusal(
                reason: "BadCollapseId",
                message: "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is \(maxCollapseIDBytes)")
        }
        if let collapseID = push.collapseID, collapseID.containsControlCharacters {
            // A line break would end the header field and start one of the message's making.
            throw Refusal(reason: "BadCollapseId", message: "apns-collapse-id contains a control character")
        }
        guard !push.token.isEmpty else {
            throw Refusal(reason: "MissingDeviceToken", message: "the device token is empty")
        }
        return HTTP2Request(
            method: "POST", url: "\(endpoint)/3/device/\(push.token)",
            headers: headers(for: push, authorization: authorization),
            body: push.payload, timeout: timeout)
    }

    /// The header fields, in a fixed order.
    public static func headers(for push: OutgoingPush, authorization: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        if let authorization { headers.append(("authorization", authorization)) }
        headers.append(("apns-topic", apnsTopic(for: push)))
        headers.append(("apns-push-type", push.pushType.rawValue))
        headers.append(("apns-priority", String(push.priority)))
        let expiration = push.expiration.map { max(0, Int64($0.timeIntervalSince1970.rounded(.down))) } ?? 0
        headers.append(("apns-expiration", String(expiration)))
        if let collapseID = push.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        headers.append(("apns-id", push.apnsID.lowercasedString))
        headers.append(("content-type", "application/json"))
        return headers
    }

    /// The `apns-topic` of `push`: its bundle id, with the suffix Apple requires for VoIP
    /// (`<bundle id>.voip`) and Live Activity (`<bundle id>.push-type.liveactivity`) pushes.
    public static func apnsTopic(for push: OutgoingPush) -> String {
        let suffix: String
        switch push.pushType {
        case .voip: suffix = ".voip"
        case .liveActivity: suffix = ".push-type.liveactivity"
        default: return push.topic
        }
        return push.topic.hasSuffix(suffix) ? push.topic : push.topic + suffix
    }
}
