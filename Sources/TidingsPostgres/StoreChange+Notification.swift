import TidingsStore

extension StoreChange {
    /// The channel every instance of one database notifies and listens on.
    static let notificationChannel = "tidings_changes"

    /// The `NOTIFY` payload: the kind, a space, and the id (`key key_8c1d2e3f4a5b`); ids are kept verbatim,
    /// spaces and all, since only the first space separates. Never a secret: any session of the database may
    /// listen.
    var notificationPayload: String {
        switch self {
        case .key(let id): "key \(id)"
        case .app(let id): "app \(id)"
        case .identityKeys(let appID): "identity_keys \(appID)"
        case .pushCredentials(let appID): "push_credentials \(appID)"
        case .messageCancelled(let id): "message_cancelled \(id)"
        case .erasures(let appID): "erasures \(appID)"
        case .everything: "everything"
        }
    }

    /// The change a payload names; ``everything`` for one this version does not know (sent by a newer
    /// instance during a rolling upgrade), since dropping every cache is always safe.
    init(notificationPayload payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let id = parts.count == 2 ? String(parts[1]) : ""
        switch (parts.first.map(String.init), id.isEmpty) {
        case ("key", false): self = .key(id: id)
        case ("app", false): self = .app(id: id)
        case ("identity_keys", false): self = .identityKeys(appID: id)
        case ("push_credentials", false): self = .pushCredentials(appID: id)
        case ("message_cancelled", false): self = .messageCancelled(id: id)
        case ("erasures", false): self = .erasures(appID: id)
        default: self = .everything
        }
    }
}
