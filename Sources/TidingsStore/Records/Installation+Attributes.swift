import TidingsModel

extension Installation {
    /// ``attributes`` as one JSON object, as both backends store it; nil when there are none.
    package var encodedAttributes: String? {
        guard !attributes.isEmpty else { return nil }
        return try? AttributeValue.json(attributes).serializedString(sortedKeys: true)
    }

    /// The attributes ``encodedAttributes`` wrote; empty for nil or anything unreadable.
    package static func decodeAttributes(_ text: String?) -> [String: AttributeValue] {
        guard let text, let object = (try? JSONValue.parse(text))?.objectValue else { return [:] }
        return AttributeValue.decodeStored(object)
    }
}

extension Installation {
    /// This installation with the profile of its user taken from `profiles` (by user id).
    public func withUserAttributes(from profiles: [String: [String: AttributeValue]]) -> Installation {
        guard let userID, let attributes = profiles[userID] else { return self }
        var installation = self
        installation.userAttributes = attributes
        return installation
    }
}
