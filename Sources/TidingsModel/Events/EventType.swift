/// What happened: an open set of event names, so a newer SDK's events still travel through an older server.
///
/// - Important: `delivery` is recorded once per message and installation, whichever of the extension,
///   the foreground path or the background path sees it first.
public struct EventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let tokenRegister = EventType("token_register")
    public static let tokenUnregister = EventType("token_unregister")
    public static let permissionChange = EventType("permission_change")
    /// The notification reached the device (extension, foreground or background path).
    public static let delivery = EventType("delivery")
    /// The person tapped the notification body.
    public static let open = EventType("open")
    /// The person cleared the notification (needs a category with the custom-dismiss option).
    public static let dismiss = EventType("dismiss")
    /// The person tapped a button; `action_id` says which.
    public static let action = EventType("action")
    /// The person answered through a text-input button; the text is sent only when the app opts in.
    public static let reply = EventType("reply")
    /// A web URL was opened; `value` is the URL.
    public static let linkOpen = EventType("link_open")
    /// A deep link was opened; `value` is the URL.
    public static let deeplinkOpen = EventType("deeplink_open")
    /// An app screen was opened; `value` is its name.
    public static let screenOpen = EventType("screen_open")
    /// A coupon code was copied; `value` is the code.
    public static let couponCopy = EventType("coupon_copy")
    /// A background (content-available) push arrived.
    public static let silentReceived = EventType("silent_received")
    /// Media could not be attached; `attributes.reason` says why.
    public static let mediaFailed = EventType("media_failed")
    /// Diagnostic: the event store dropped events; `attributes.count` and `attributes.reason` say how many and why.
    public static let eventsDropped = EventType("events_dropped")
    /// Server-side: APNs reported the token unregistered (uninstall tracking).
    public static let uninstall = EventType("uninstall")

    /// Every type this version knows.
    public static let known: Set<EventType> = [
        .tokenRegister, .tokenUnregister, .permissionChange, .delivery, .open, .dismiss, .action, .reply,
        .linkOpen, .deeplinkOpen, .screenOpen, .couponCopy, .silentReceived, .mediaFailed, .eventsDropped,
        .uninstall,
    ]

    /// Whether this is the app's own event (a `purchase`, a `sign_up`): a name of 1 to 64 lowercase letters, digits
    /// or `_`, starting with a letter, that is not a built-in type. Names starting with `tidings_` are kept for
    /// built-in types to come, so an app's events never change meaning when tidingsd learns a new one.
    public var isCustom: Bool {
        !Self.known.contains(self) && Self.isValidName(rawValue) && !rawValue.hasPrefix(Self.reservedPrefix)
    }

    /// Whether tidingsd stores events of this type: a built-in type or a custom one.
    public var isAccepted: Bool { Self.known.contains(self) || isCustom }

    /// The prefix of built-in types to come, which custom types may not use.
    public static let reservedPrefix = "tidings_"

    /// The rule every type name keeps: 1 to 64 lowercase ASCII letters, digits or `_`, starting with a letter.
    public static func isValidName(_ name: String) -> Bool {
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first, letters.contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { letters.contains($0) || digits.contains($0) || $0 == UInt8(ascii: "_") }
    }

    /// What an unaccepted type is told, naming the rule.
    public static let customNameRule =
        "a built-in type or a custom name of 1 to 64 lowercase letters, digits or '_', starting with a letter "
        + "and not with '\(reservedPrefix)'"

    /// Events about one notification, which must carry its `message_id`.
    public var isNotificationEvent: Bool { Self.notificationEvents.contains(self) }

    private static let notificationEvents: Set<EventType> = [
        .delivery, .open, .dismiss, .action, .reply, .linkOpen, .deeplinkOpen, .screenOpen, .couponCopy,
        .silentReceived, .mediaFailed,
    ]

    /// Types only tidingsd records, which an app key may not send.
    public var isServerOnly: Bool { self == .uninstall }

    /// Events about a push token, which must carry `token` and `token_type`.
    public var isTokenEvent: Bool { self == .tokenRegister || self == .tokenUnregister }
}
