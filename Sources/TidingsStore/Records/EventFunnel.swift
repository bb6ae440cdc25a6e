/// Which events a funnel counts: those of one campaign or of one message.
public enum FunnelScope: Sendable, Hashable {
    case campaign(String)
    case message(String)
}

/// Raw counts behind a campaign's or message's funnel.
public struct EventFunnel: Sendable, Hashable {
    /// Events per type (`delivery`, `open`, ...).
    public var eventsByType: [String: Int]
    /// Distinct installations per type.
    public var installationsByType: [String: Int]
    /// Distinct installations with any event in scope.
    public var uniqueInstallations: Int

    public init(
        eventsByType: [String: Int] = [:], installationsByType: [String: Int] = [:], uniqueInstallations: Int = 0
    ) {
        self.eventsByType = eventsByType
        self.installationsByType = installationsByType
        self.uniqueInstallations = uniqueInstallations
    }
}
