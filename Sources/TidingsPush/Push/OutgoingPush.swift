import Foundation
import TidingsModel

/// One notification to one device token, ready for a provider: what fan-out hands to APNs or FCM.
public struct OutgoingPush: Sendable, Hashable {
    /// APNs `apns-push-type`: an open set, so a type Apple adds later can still be sent.
    public struct PushType: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let alert = PushType(rawValue: "alert")
        public static let background = PushType(rawValue: "background")
        public static let voip = PushType(rawValue: "voip")
        public static let liveActivity = PushType(rawValue: "liveactivity")
    }

    /// Which APNs host serves the token.
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        case sandbox
        case production
    }

    /// The device token (lower-case hex for APNs, the registration token for FCM).
    public var token: String
    public var tokenType: TokenType
    public var environment: Environment
    /// The app's bundle id; the APNs provider adds `.voip` for VoIP pushes and `.push-type.liveactivity` for
    /// Live Activity pushes.
    public var topic: String
    public var pushType: PushType
    /// 10 sends at once, 5 saves power (required for background pushes), 1 lowest.
    public var priority: Int
    /// After this APNs stops trying to deliver; nil delivers once, now or never (`apns-expiration: 0`).
    public var expiration: Date?
    /// Notifications with the same id replace each other on the device (at most 64 bytes).
    public var collapseID: String?
    /// `apns-id`: our message id for this device, echoed in APNs' answer.
    public var apnsID: UUID
    /// The JSON payload, already built and checked against the size limit.
    public var payload: [UInt8]
    /// The installation the push is for, when fan-out knows it: lets a router find the installation's
    /// other tokens.
    public var installationID: String?

    public init(
        token: String, tokenType: TokenType = .apns, environment: Environment, topic: String,
        pushType: PushType = .alert, priority: Int = 10, expiration: Date? = nil, collapseID: String? = nil,
        apnsID: UUID = PushIDGenerator.next(), payload: [UInt8], installationID: String? = nil
    ) {
        self.installationID = installationID
        self.token = token
        self.tokenType = tokenType
        self.environment = environment
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }
}
