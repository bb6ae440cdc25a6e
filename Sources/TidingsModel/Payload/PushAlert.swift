/// The visible text of a notification (`aps.alert`), literal or localised through the app's strings.
public struct PushAlert: Sendable, Hashable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    public var locKey: String?
    public var locArgs: [String]?
    public var launchImage: String?

    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, titleLocKey: String? = nil,
        titleLocArgs: [String]? = nil, subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil,
        locKey: String? = nil, locArgs: [String]? = nil, launchImage: String? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.subtitleLocKey = subtitleLocKey
        self.subtitleLocArgs = subtitleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
        self.launchImage = launchImage
    }

    /// Whether nothing would be shown: no text and no localisation key.
    public var isEmpty: Bool {
        [title, subtitle, body, titleLocKey, subtitleLocKey, locKey].allSatisfy { $0?.isEmpty ?? true }
    }
}
