import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Enters people into journeys with a segment trigger when they join the segment: when the store last recorded
/// them as not members and a look now finds them members (``JourneySegmentStore``).
///
/// Two looks find joins. A signal about a person (an event, or a change to an attribute the segment reads)
/// checks that person's membership at once, reading only their installations. A sweep on the leader
/// (``JourneySegmentSweep``) finds the joins no signal announces: time passing in `not event app_open within
/// 14d`, device fields, logins, imports.
final class JourneySegmentTriggers: Sendable {
    let store: any Store
    let clock: any TidingsClock
    let catalog: JourneyCatalog
    let logger: Logger

    init(store: any Store, clock: any TidingsClock, catalog: JourneyCatalog, logger: Logger) {
        self.store = store
        self.clock = clock
        self.catalog = catalog
        self.logger = logger
    }

    /// Sweeps every active segment-triggered journey; returns how many people entered.
    @discardableResult
    func sweep() throws -> Int {
        let sweep = JourneySegmentSweep(store: store)
        var entered = 0
        for journey in try store.journeys(appID: nil) where journey.state == .active && journey.triggerKind == "segment"
        {
            guard let definition = try catalog.definition(journeyID: journey.id, version: journey.version),
                case .segment(let name, let includeCurrentMembers) = definition.trigger,
                let first = definition.steps.first
            else { continue }
            guard let audience = try catalog.journeys(appID: journey.appID).segmentAudiences[journey.id] else {
                logger.warning(
                    "journey's segment is missing; nobody enters",
                    metadata: ["journey_id": journey.id, "segment": name])
                continue
            }
            entered += try sweep.run(
                journey, firstStep: first.id, segment: name, audience: audience,
                includeCurrentMembers: includeCurrentMembers, minimumGap: JourneyEngine.minimumGap(definition.entry),
                now: clock.now.millisecondsSince1970)
        }
        return entered
    }

    /// Checks the membership of the signal's person in the segments of the app's segment-triggered journeys
    /// whose segment reads what the signal is about, recording a join (entering them) or a leave.
    func react(to signal: JourneySignal, journeys: JourneyCatalog.AppJourneys) throws {
        guard !journeys.segmentAudiences.isEmpty else { return }
        let subject = JourneySubject(signal: signal)
        let now = clock.now.millisecondsSince1970
        for (journey, definition) in journeys.active {
            guard case .segment(let name, _) = definition.trigger, let first = definition.steps.first,
                let audience = journeys.segmentAudiences[journey.id]
            else { continue }
            let relevant =
                signal.kind == .event
                ? audience.eventTypes.contains(signal.name) : audience.attributeKeys.contains(signal.name)
            guard relevant else { continue }
            let member = try isMember(subject, of: audience, appID: signal.appID, now: now)
            let join = JourneySegmentSweep.join(
                journey, firstStep: first.id, subject: subject.text,
                minimumGap: JourneyEngine.minimumGap(definition.entry), now: now, enters: true)
            _ = try store.recordJourneySegmentMembership(
                journeyID: journey.id, segment: name, joined: member ? [join] : [],
                left: member ? [] : [subject.text], takingBaseline: false, now: now)
        }
    }

    /// Whether any installation of the person is in the audience: read by key, never a scan.
    func isMember(_ subject: JourneySubject, of audience: AudienceExpression, appID: String, now: Int64) throws
        -> Bool
    {
        if let userID = subject.userID {
            let theirs = AudienceExpression.condition(
                AudienceCondition(field: .userID, comparison: .equal, values: [.text(userID)]))
            return try !store.installations(
                appID: appID, audience: .and(theirs, audience), afterInstallationID: nil, limit: 1, now: now
            ).isEmpty
        }
        guard let installationID = subject.installationID else { return false }
        return try store.installationIDs(appID: appID, audience: audience, among: [installationID], now: now)
            .contains(installationID)
    }
}
