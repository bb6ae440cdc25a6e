import TidingsCampaigns
import TidingsModel
import TidingsStore

/// The journey signals of attribute changes: which keys the app's active journeys are triggered by, and the
/// signals a write makes of the attributes before and after it. The write stores them in its own transaction
/// (``InstallationUpdate/journeySignals``, ``UserProfileStore/updateUserProfile(appID:userID:now:signalling:_:)``),
/// so a trigger is never lost to a crash between the write and the signal.
struct AttributeChangeSignals: Sendable {
    let appID: String
    /// The installation attribute keys journeys listen to (`{"attribute": "plan"}`).
    let installationKeys: Set<String>
    /// The user profile attribute keys journeys listen to (`{"attribute": "user.plan"}`), without the prefix.
    let userKeys: Set<String>

    /// - Parameter triggerKeys: the keys of the app's attribute triggers, as the journeys name them.
    init(appID: String, triggerKeys: Set<String>) {
        self.appID = appID
        let prefix = JourneyTrigger.userAttributePrefix
        installationKeys = triggerKeys.filter { !$0.hasPrefix(prefix) }
        userKeys = Set(triggerKeys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    }

    /// The signals of the installation attributes `update` changes; their subject is the user the installation
    /// belongs to after the update, or the installation when nobody is logged in on it.
    func signals(_ update: InstallationUpdate, existing: Installation?, installationID: String, now: Int64)
        -> [JourneySignal]
    {
        guard !installationKeys.isEmpty else { return [] }
        let before = existing?.attributes ?? [:]
        let userID = update.userID.applied(to: existing?.userID) ?? nil
        return Self.changedKeys(installationKeys, before, update.attributes(after: before)).map { key, value in
            JourneySignal(
                appID: appID, kind: .attribute, name: key, installationID: installationID, userID: userID,
                value: value, attributes: nil, occurredAt: now)
        }
    }

    /// The signals of the user profile attributes that go from `before` to `after`, named `user.KEY`; their
    /// subject is the user.
    func signals(userID: String, before: [String: AttributeValue], after: [String: AttributeValue], now: Int64)
        -> [JourneySignal]
    {
        Self.changedKeys(userKeys, before, after).map { key, value in
            JourneySignal(
                appID: appID, kind: .attribute, name: JourneyTrigger.userAttributePrefix + key, installationID: "",
                userID: userID, value: value, attributes: nil, occurredAt: now)
        }
    }

    /// The keys among `keys` whose value differs between `before` and `after`, sorted, with the new value as
    /// JSON text (`null` when removed).
    private static func changedKeys(
        _ keys: Set<String>, _ before: [String: AttributeValue], _ after: [String: AttributeValue]
    ) -> [(key: String, value: String)] {
        keys.sorted().compactMap { key in
            guard before[key] != after[key] else { return nil }
            return (key, JSONText.string(after[key]?.json ?? .null))
        }
    }
}
