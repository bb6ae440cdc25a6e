/// A `UNNotificationResponse` as plain values, converted once by the Apple glue.
public struct NotificationResponseValues: Sendable, Hashable {
    /// `actionIdentifier`.
    public var actionIdentifier: String
    /// `UNTextInputNotificationResponse.userText`, for reply buttons.
    public var userText: String?
    /// `notification.request.content.userInfo`, as JSON.
    public var userInfo: JSONValue
    /// `notification.request.identifier`: the same tap reported twice has the same one.
    public var requestIdentifier: String

    public init(actionIdentifier: String, userText: String? = nil, userInfo: JSONValue, requestIdentifier: String) {
        self.actionIdentifier = actionIdentifier
        self.userText = userText
        self.userInfo = userInfo
        self.requestIdentifier = requestIdentifier
    }
}
