import TidingsModel

/// User profiles: custom attributes set for a user rather than a device, which every installation of the user
/// shares (`user.KEY` in audiences). ``Store`` refines this protocol.
public protocol UserProfileStore: Sendable {
    /// The user's profile; nil when the user has no attributes.
    func userProfile(appID: String, userID: String) throws -> UserProfile?
    /// The attributes of those of `userIDs` that have a profile, by user id.
    func userAttributes(appID: String, userIDs: [String]) throws -> [String: [String: AttributeValue]]
    /// Replaces the user's attributes with what `change` makes of the current ones (empty when there is no
    /// profile), atomically; `change` may throw to refuse, and then nothing changes. The journey signals
    /// `signalling` makes of the attributes before and after are written in the same transaction.
    /// - Returns: The profile written; nil when no attribute is left (the profile is then removed).
    func updateUserProfile(
        appID: String, userID: String, now: Int64,
        signalling: (_ before: [String: AttributeValue], _ after: [String: AttributeValue]) -> [JourneySignal],
        _ change: ([String: AttributeValue]) throws -> [String: AttributeValue]
    ) throws -> UserProfile?
}

extension UserProfileStore {
    /// The update without journey signals: for imports, tools and tests.
    public func updateUserProfile(
        appID: String, userID: String, now: Int64,
        _ change: ([String: AttributeValue]) throws -> [String: AttributeValue]
    ) throws -> UserProfile? {
        try updateUserProfile(appID: appID, userID: userID, now: now, signalling: { _, _ in [] }, change)
    }

    /// The profiles of the users `installations` are logged in as, by user id, in one read: what
    /// `{{user.NAME}}` in a template needs (``Installation/withUserAttributes(from:)``).
    public func userAttributes(of installations: [Installation], appID: String) throws
        -> [String: [String: AttributeValue]]
    {
        let users = Set(installations.compactMap(\.userID))
        return users.isEmpty ? [:] : try userAttributes(appID: appID, userIDs: users.sorted())
    }
}
