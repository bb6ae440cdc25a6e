import Foundation

/// One notification kept in the app's inbox.
public struct InboxEntry: Sendable, Hashable {
    /// The payload's message id.
    public var id: String
    /// The alert's literal texts (localisation keys are the app's to resolve from ``payload``).
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var receivedAt: Date
    /// After this the entry is hidden and purged; nil keeps it until deleted.
    public var expiresAt: Date?
    public var isRead: Bool
    /// The whole payload, so a tap in the inbox routes like a tap on the notification.
    public var payload: PushPayload

    public init(
        id: String, title: String?, subtitle: String?, body: String?, receivedAt: Date, expiresAt: Date?,
        isRead: Bool, payload: PushPayload
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.isRead = isRead
        self.payload = payload
    }

    /// What a tap on the entry does.
    public var action: PushAction? { payload.defaultAction }
}
