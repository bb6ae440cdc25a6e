/// What a console operator may do: each role includes the ones before it.
public enum OperatorRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Reads every page of the apps: installations, events, messages, statistics.
    case viewer
    /// Also writes app data: sends messages, cancels them, changes installations and tags.
    case editor
    /// Also manages apps, API keys, APNs and FCM credentials, identity keys and operators.
    case admin

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .editor: 1
        case .admin: 2
        }
    }

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool { lhs.rank < rhs.rank }
}
