import Foundation
import TidingsModel

/// Builds the `messages:send` request of one push: the registration token and an `apns` override that
/// carries our native payload untouched and the APNs headers fan-out chose.
///
/// ```json
/// {"message":{"token":"...","apns":{"headers":{"apns-push-type":"alert","apns-priority":"10",
///   "apns-expiration":"0"},"payload":{"aps":{...},"tidings":{...}}}}}
/// ```
///
/// The payload bytes are spliced in as they are (they were built and size-checked before queueing), so
/// what reaches the device through FCM is byte for byte what APNs would have received.
public enum FCMRequestBuilder {
    /// Why a push cannot go through FCM.
    public struct Refusal: Error, Sendable, Equatable {
        /// The counted reason.
        public var reason: String
    }

    /// The `POST {endpoint}/v1/projects/{project}/messages:send` request for `push`.
    /// - Throws: ``Refusal`` `NotAnFCMToken` for an APNs or VoIP token, `InvalidCollapseId` for a collapse id
    ///   over 64 bytes, `InvalidPayload` for a payload that is not a JSON object.
    public static func request(
        for push: OutgoingPush, endpoint: String, projectID: String, accessToken: String, timeout: Duration
    ) throws(Refusal) -> HTTP2Request {
        guard push.tokenType == .fcm else { throw Refusal(reason: "NotAnFCMToken") }
        guard push.payload.first == UInt8(ascii: "{") else { throw Refusal(reason: "InvalidPayload") }
        var headers: [String: JSONValue] = [
            "apns-push-type": .string(push.pushType.rawValue), "apns-priority": .string(String(push.priority)),
            "apns-expiration": .string(String(push.expiration.map { Int64($0.timeIntervalSince1970) } ?? 0)),
        ]
        if let collapseID = push.collapseID {
            guard collapseID.utf8.count <= 64 else { throw Refusal(reason: "InvalidCollapseId") }
            headers["apns-collapse-id"] = .string(collapseID)
        }
        var body: [UInt8]
        do {
            body = Array(#"{"message":{"token":"#.utf8)
            body += try JSONValue.string(push.token).serialized()
            body += Array(#","apns":{"headers":"#.utf8)
            body += try JSONValue.object(headers).serialized(sortedKeys: true)
        } catch {
            // Strings only: the writer cannot fail on them.
            throw Refusal(reason: "InvalidPayload")
        }
        body += Array(#","payload":"#.utf8)
        body += push.payload
        body += Array("}}}".utf8)
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        return HTTP2Request(
            method: "POST", url: "\(base)/v1/projects/\(projectID)/messages:send",
            headers: [
                ("authorization", "Bearer " + accessToken), ("content-type", "application/json; charset=utf-8"),
            ],
            body: body, timeout: timeout)
    }
}
