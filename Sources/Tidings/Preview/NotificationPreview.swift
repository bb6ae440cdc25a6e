/// What one device shows for a push: the text, the image, the buttons, where a tap goes, how the app
/// presents it in the foreground, and the badge, sound and inbox entry.
///
/// Made by ``NotificationPreviewer`` from the SDK's own decisions; ``json`` is the `device_previews` entry
/// of a dry run.
public struct NotificationPreview: Sendable, Hashable {
    /// The profile's name (`iPhone, iOS 18, app in background`).
    public var device: String
    /// Whether anything appears on screen or in Notification Center.
    public var isShown: Bool
    /// Why nothing appears, when it does not.
    public var notShownReason: String?
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// The push's media and whether it is attached; nil when the push has none.
    public var image: Image?
    /// The notification's category: the buttons' category, the default one, or the push's own.
    public var categoryID: String?
    /// The buttons iOS shows, in order.
    public var buttons: [Button]
    /// What a tap on the notification's body does; nil when nothing is shown.
    public var tap: Tap?
    /// How the app presents it while in the foreground; nil when the app is not in the foreground.
    public var foregroundPresentation: PresentationOptions?
    /// The number the app icon shows afterwards; nil when it is left as it was.
    public var badge: Int?
    /// The sound played; nil for none.
    public var sound: String?
    /// Whether the push is kept in the app's inbox.
    public var isKeptInInbox: Bool

    public init(
        device: String, isShown: Bool, notShownReason: String? = nil, title: String? = nil,
        subtitle: String? = nil, body: String? = nil, image: Image? = nil, categoryID: String? = nil,
        buttons: [Button] = [], tap: Tap? = nil, foregroundPresentation: PresentationOptions? = nil,
        badge: Int? = nil, sound: String? = nil, isKeptInInbox: Bool = false
    ) {
        self.device = device
        self.isShown = isShown
        self.notShownReason = notShownReason
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.image = image
        self.categoryID = categoryID
        self.buttons = buttons
        self.tap = tap
        self.foregroundPresentation = foregroundPresentation
        self.badge = badge
        self.sound = sound
        self.isKeptInInbox = isKeptInInbox
    }
}
