import Foundation

/// One push notification, whatever vendor's payload it arrived in: the canonical model every part of
/// Tidings uses.
///
/// Decoded from any ``PushDialect``; encoded only in the native dialect, which is what `tidingsd`
/// sends. Nothing in a payload is silently lost: keys the model has no field for are kept in
/// ``unrecognized`` (vendor keys) or ``data`` (the app's own custom keys).
public struct PushPayload: Sendable, Hashable {
    /// Whose payload this is.
    public var dialect: PushDialect

    /// Identifies this send; the de-duplication key of delivery events. See ``PushPayload`` decoding
    /// docs for the fallback order per dialect.
    public var messageID: String?
    /// Groups sends of one campaign for reporting.
    public var campaignID: String?
    /// The vendor's or Tidings' app id, when the payload carries one.
    public var appID: String?
    /// When the server sent the push.
    public var sentAt: Date?

    /// The visible text; nil for a background push.
    public var alert: PushAlert?
    public var sound: PushSound?
    /// The notification category (buttons and dismiss tracking are registered per category).
    public var category: String?
    public var threadID: String?
    public var interruptionLevel: InterruptionLevel?
    /// 0...1; iOS uses it to pick the summary's featured notification.
    public var relevanceScore: Double?
    public var targetContentID: String?
    public var badge: BadgeInstruction

    /// `aps.content-available`: the app is woken in the background.
    public var contentAvailable: Bool
    /// `aps.mutable-content`: the Notification Service Extension runs (media, buttons, delivery tracking).
    public var mutableContent: Bool
    /// A vendor's or our own system push (uninstall tracking, sync): apps must not treat it as content.
    public var isInternal: Bool

    /// What a tap on the notification body does; nil means the system default (open the app).
    public var defaultAction: PushAction?
    public var buttons: [PushButton]
    public var media: PushMedia?
    /// A coupon code offered to copy when the notification is opened.
    public var coupon: String?
    /// Whether and until when the notification stays in the app's inbox.
    public var inbox: InboxPolicy?

    /// The app's own custom key-values (top-level custom keys, MoEngage `screenData`, NHN custom keys...).
    public var data: [String: JSONValue]
    /// Vendor keys the model has no field for, at their original paths (a JSON object mirroring the
    /// payload), so that nothing is lost: for example `{"aps": {"x-future": 1}, "moengage": {"moeFeatures": {...}}}`.
    public var unrecognized: [String: JSONValue]

    public init(
        dialect: PushDialect = .native, messageID: String? = nil, campaignID: String? = nil, appID: String? = nil,
        sentAt: Date? = nil, alert: PushAlert? = nil, sound: PushSound? = nil, category: String? = nil,
        threadID: String? = nil, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
        targetContentID: String? = nil, badge: BadgeInstruction = .none, contentAvailable: Bool = false,
        mutableContent: Bool = false, isInternal: Bool = false, defaultAction: PushAction? = nil,
        buttons: [PushButton] = [], media: PushMedia? = nil, coupon: String? = nil, inbox: InboxPolicy? = nil,
        data: [String: JSONValue] = [:], unrecognized: [String: JSONValue] = [:]
    ) {
        self.dialect = dialect
        self.messageID = messageID
        self.campaignID = campaignID
        self.appID = appID
        self.sentAt = sentAt
        self.alert = alert
        self.sound = sound
        self.category = category
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.targetContentID = targetContentID
        self.badge = badge
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.isInternal = isInternal
        self.defaultAction = defaultAction
        self.buttons = buttons
        self.media = media
        self.coupon = coupon
        self.inbox = inbox
        self.data = data
        self.unrecognized = unrecognized
    }
}

extension PushPayload {
    /// How the push is delivered, from `content-available` and the presence of visible content.
    public var delivery: DeliveryKind {
        let visible = alert?.isEmpty == false || sound != nil || badge != .none
        switch (visible, contentAvailable) {
        case (true, true): return .alertAndBackground
        case (false, true): return .background
        default: return .alert
        }
    }

    /// The classification apps gate their work on: internal pushes first, then background, then alert.
    public var kind: PushKind {
        if isInternal { return .internal }
        return delivery == .background ? .background : .alert
    }
}
