/// How the app's badge follows pushes, the inbox and launches: a pure function of its inputs.
///
/// | instruction | result |
/// |---|---|
/// | `.none` | leave |
/// | `.set(n)` | n (negative reads as 0) |
/// | `.increment(n)` | shared counter + n |
/// | `.clear` | 0 |
///
/// With ``updatesEnabled`` off nothing is ever touched; with ``followsInboxUnreadCount`` the badge is the
/// inbox's unread count whatever the push says. The badge is never cleared on launch unless
/// ``clearsOnLaunch`` is set: clearing it also empties Notification Center on some systems.
public struct BadgePolicy: Sendable, Hashable {
    /// Off: the SDK never touches the badge.
    public var updatesEnabled: Bool
    /// The badge shows the inbox's unread count instead of the pushes' instructions.
    public var followsInboxUnreadCount: Bool
    /// Clear the badge when the app launches.
    public var clearsOnLaunch: Bool

    public init(updatesEnabled: Bool = true, followsInboxUnreadCount: Bool = false, clearsOnLaunch: Bool = false) {
        self.updatesEnabled = updatesEnabled
        self.followsInboxUnreadCount = followsInboxUnreadCount
        self.clearsOnLaunch = clearsOnLaunch
    }

    /// The badge after a push carrying `instruction`, given the shared counter and the inbox's unread count.
    public func update(for instruction: BadgeInstruction, counter: Int, inboxUnread: Int? = nil) -> BadgeUpdate {
        guard updatesEnabled else { return .leave }
        if followsInboxUnreadCount, let inboxUnread { return .set(max(0, inboxUnread)) }
        switch instruction {
        case .none: return .leave
        case .set(let count): return .set(max(0, count))
        case .clear: return .set(0)
        case .increment(let amount):
            let (sum, overflow) = max(0, counter).addingReportingOverflow(max(0, amount))
            return .set(overflow ? Int.max : sum)
        }
    }

    /// The badge when the app launches.
    public func launchUpdate(inboxUnread: Int? = nil) -> BadgeUpdate {
        guard updatesEnabled else { return .leave }
        if followsInboxUnreadCount, let inboxUnread { return .set(max(0, inboxUnread)) }
        return clearsOnLaunch ? .set(0) : .leave
    }
}
