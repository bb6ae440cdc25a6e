import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// What a run's steps ask about its person, answered from the store: their events, their installations'
/// audience membership and zone.
struct StoreJourneyFacts: JourneyFacts {
    let store: any Store
    let appID: String
    let subject: JourneySubject
    let now: Int64
    /// The run's journey and version, whose send steps' split tests the facts start and read.
    var journey: (id: String, version: Int)? = nil

    /// The most events of one type read to find a match of a `where` condition.
    static let eventScanLimit = 500

    func emitted(_ match: JourneyEventMatch, since: Int64) throws -> Bool {
        let events = try store.journeySubjectEvents(
            appID: appID, userID: subject.userID, installationID: subject.installationID, type: match.type,
            since: since, limit: Self.eventScanLimit)
        return events.contains { JourneyEngine.matches(match, $0) }
    }

    func matches(audience: String) throws -> Bool {
        // Saved segments as they are now: a branch follows edits of the segments it names.
        let segments =
            AudienceExpression.segmentNames(in: audience).isEmpty
            ? [:]
            : Dictionary(
                try store.segments(appID: appID).map { ($0.name, $0.expression) },
                uniquingKeysWith: { first, _ in first })
        let expression = try AudienceExpression.parse(audience, segments: segments)
        let installations = try installationIDs()
        guard !installations.isEmpty else { return false }
        return try !store.installationIDs(appID: appID, audience: expression, among: installations, now: now).isEmpty
    }

    func timeZone() throws -> TimeZone? {
        let ids = try installationIDs()
        for installation in try store.installations(appID: appID, installationIDs: ids) {
            if let zone = installation.timezone.flatMap({ TimeZone(identifier: $0) }) { return zone }
        }
        return nil
    }

    func stepTest(stepID: String, test: JourneyStepTest) throws -> JourneyStepTestRecord? {
        guard let journey else { return nil }
        return try store.startJourneyStepTest(
            test.record(appID: appID, journeyID: journey.id, version: journey.version, stepID: stepID, startedAt: now))
    }

    private func installationIDs() throws -> [String] {
        if let installationID = subject.installationID { return [installationID] }
        guard let userID = subject.userID else { return [] }
        return try store.installations(appID: appID, query: InstallationQuery(userID: userID, limit: 100)).map(
            \.installationID)
    }
}
