/// A Live Activity push token of one installation: the token that updates and ends one running activity,
/// or the push-to-start token (iOS 17.2+) that starts a new activity of one attributes type.
///
/// Both are APNs tokens separate from the installation's device token; APNs takes them with
/// `apns-push-type: liveactivity` on the topic `<bundle id>.push-type.liveactivity`.
public struct LiveActivityToken: Sendable, Hashable {
    /// Which of the two tokens this is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `Activity.pushTokenUpdates`: updates and ends the activity ``LiveActivityToken/activityID``.
        case update
        /// `Activity.pushToStartTokenUpdates`: starts an activity of ``LiveActivityToken/attributesType``.
        case pushToStart = "push_to_start"
    }

    public var appID: String
    public var installationID: String
    public var kind: Kind
    /// The activity an update token belongs to; nil for a push-to-start token.
    public var activityID: String?
    /// The name of the app's `ActivityAttributes` type (APNs `attributes-type`).
    public var attributesType: String
    /// Lower-case hex.
    public var token: String
    /// `sandbox` or `production`: which APNs host serves the token.
    public var environment: String
    public var createdAt: Int64
    /// When the device last registered or refreshed it.
    public var updatedAt: Int64
    /// When a push to it last got an answer, and which (`sent`, or the APNs reason).
    public var lastSentAt: Int64?
    public var lastOutcome: String?

    public init(
        appID: String, installationID: String, kind: Kind, activityID: String?, attributesType: String,
        token: String, environment: String, createdAt: Int64, updatedAt: Int64, lastSentAt: Int64? = nil,
        lastOutcome: String? = nil
    ) {
        self.appID = appID
        self.installationID = installationID
        self.kind = kind
        self.activityID = activityID
        self.attributesType = attributesType
        self.token = token
        self.environment = environment
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastSentAt = lastSentAt
        self.lastOutcome = lastOutcome
    }

    /// What identifies the token within its installation and kind: the activity id of an update token, the
    /// attributes type of a push-to-start token.
    public var scope: String { kind == .update ? (activityID ?? "") : attributesType }
}
