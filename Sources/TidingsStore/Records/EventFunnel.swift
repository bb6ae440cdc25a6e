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
    /// Distinct installations per ``FunnelStage``; a stage nobody reached may be missing.
    public var installationsByStage: [FunnelStage: Int]
    /// `action` events whose button opens the app: opens, like `open` events, though typed as actions.
    public var openingActionEvents: Int

    public init(
        eventsByType: [String: Int] = [:], installationsByType: [String: Int] = [:], uniqueInstallations: Int = 0,
        installationsByStage: [FunnelStage: Int] = [:], openingActionEvents: Int = 0
    ) {
        self.eventsByType = eventsByType
        self.installationsByType = installationsByType
        self.uniqueInstallations = uniqueInstallations
        self.installationsByStage = installationsByStage
        self.openingActionEvents = openingActionEvents
    }

    /// Distinct installations in `stage`.
    public func installations(_ stage: FunnelStage) -> Int { installationsByStage[stage] ?? 0 }

    /// Reads the stage columns of ``FunnelStage/columns(openingActions:)`` from `values`, in their order.
    package mutating func setStages(_ values: [Int]) {
        for (stage, value) in zip(FunnelStage.allCases, values) where value > 0 { installationsByStage[stage] = value }
        openingActionEvents = values.count > FunnelStage.allCases.count ? values[FunnelStage.allCases.count] : 0
    }
}
