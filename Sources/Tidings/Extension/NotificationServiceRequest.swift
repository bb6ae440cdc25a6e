/// What the Notification Service Extension received, as plain values: the request's `userInfo` and the
/// original content's fields.
public struct NotificationServiceRequest: Sendable, Hashable {
    /// `UNNotificationRequest.identifier`.
    public var identifier: String
    /// `content.userInfo`, converted once to JSON.
    public var userInfo: JSONValue
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// `content.categoryIdentifier`, empty when none.
    public var categoryIdentifier: String
    /// `content.badge`.
    public var badge: Int?
    /// The categories registered now (`getNotificationCategories`), oldest first.
    public var registeredCategories: [CategoryDefinition]

    public init(
        identifier: String, userInfo: JSONValue, title: String? = nil, subtitle: String? = nil, body: String? = nil,
        categoryIdentifier: String = "", badge: Int? = nil, registeredCategories: [CategoryDefinition] = []
    ) {
        self.identifier = identifier
        self.userInfo = userInfo
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.categoryIdentifier = categoryIdentifier
        self.badge = badge
        self.registeredCategories = registeredCategories
    }
}
