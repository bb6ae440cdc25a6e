import TidingsModel

/// The attributes set for one user, shared by every installation of the user.
public struct UserProfile: Sendable, Hashable {
    public var userID: String
    public var attributes: [String: AttributeValue]
    /// Unix milliseconds of the last change.
    public var updatedAt: Int64

    public init(userID: String, attributes: [String: AttributeValue], updatedAt: Int64) {
        self.userID = userID
        self.attributes = attributes
        self.updatedAt = updatedAt
    }

    /// ``attributes`` as the JSON object both backends store.
    package var encodedAttributes: String {
        (try? AttributeValue.json(attributes).serializedString(sortedKeys: true)) ?? "{}"
    }
}
