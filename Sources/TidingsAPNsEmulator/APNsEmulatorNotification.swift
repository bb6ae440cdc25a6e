import Foundation
import TidingsModel

/// One notification the APNs emulator accepted, as a simulated device receives it.
public struct APNsEmulatorNotification: Sendable, Equatable {
    /// The `apns-id` answered to the sender (the request's, or a new lower-case UUID).
    public var apnsID: String
    public var deviceToken: String
    public var topic: String
    /// `apns-push-type`, `alert` when the request had none.
    public var pushType: String
    public var priority: Int
    public var collapseID: String?
    /// `apns-expiration` in seconds since 1970; nil when absent.
    public var expiration: Int64?
    public var receivedAt: Date
    /// The JSON payload as sent (always an object).
    public var payload: JSONValue

    /// The wire form used by `GET /emulator/devices/{token}/notifications`.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "apns_id": .string(apnsID), "device_token": .string(deviceToken), "topic": .string(topic),
            "push_type": .string(pushType), "priority": .integer(Int64(priority)),
            "received_at": .integer(receivedAt.millisecondsSince1970), "payload": payload,
        ]
        if let collapseID { object["collapse_id"] = .string(collapseID) }
        if let expiration { object["expiration"] = .integer(expiration) }
        return .object(object)
    }
}

extension APNsEmulatorNotification {
    /// Reads the wire form back; nil when a required field is missing.
    public init?(json: JSONValue) {
        guard let apnsID = json["apns_id"]?.stringValue, let deviceToken = json["device_token"]?.stringValue,
            let topic = json["topic"]?.stringValue, let payload = json["payload"], payload.objectValue != nil
        else { return nil }
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = topic
        self.payload = payload
        pushType = json["push_type"]?.stringValue ?? "alert"
        priority = json["priority"]?.integerValue.map { Int($0) } ?? 10
        collapseID = json["collapse_id"]?.stringValue
        expiration = json["expiration"]?.integerValue
        receivedAt = Date(timeIntervalSince1970: Double(json["received_at"]?.integerValue ?? 0) / 1000)
    }
}
