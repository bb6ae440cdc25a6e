import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// The journeys an instance reacts to, read from the store: each version's definition (immutable, kept once
/// parsed) and, per app, the active journeys with the event types their triggers, exits and waits listen for.
///
/// An app's entry is read again after ``refreshInterval``, or at once after a change made through this
/// instance, so another instance's edit is heard within that interval.
final class JourneyCatalog: Sendable {
    /// An app's journeys as the engine and the ingest need them.
    struct AppJourneys: Sendable {
        /// The active journeys with the definition of their current version.
        var active: [(record: JourneyRecord, definition: JourneyDefinition)] = []
        /// The event types any journey that may still hold people listens for: ingest queues a signal for them.
        var signalling: Set<String> = []
        /// The attribute keys an active journey is triggered by (`user.KEY` for a user profile's), and those the
        /// segments of segment triggers read: a change to one is a signal that may make a member.
        var attributeKeys: Set<String> = []
        /// The audience of each active segment-triggered journey's segment, by journey id, with the segments it
        /// names expanded as they are now; none for a segment that no longer parses (deleted under it).
        var segmentAudiences: [String: AudienceExpression] = [:]
        var loadedAt: Date = .distantPast
    }

    let store: any Store
    let clock: any TidingsClock
    let refreshInterval: Duration
    private let definitions = LockedBox<[String: JourneyDefinition]>([:])
    private let apps = LockedBox<[String: AppJourneys]>([:])

    init(store: any Store, clock: any TidingsClock, refreshInterval: Duration = .seconds(1)) {
        self.store = store
        self.clock = clock
        self.refreshInterval = refreshInterval
    }

    /// Reads a stored definition, which was validated when it was stored.
    static func parseStored(_ text: String) -> JourneyDefinition? {
        guard let value = try? JSONValue.parse(text) else { return nil }
        return try? JourneyDefinition.parse(value, checkMessage: { _ in [] }, checkAudience: { _ in nil })
    }

    func definition(journeyID: String, version: Int) throws -> JourneyDefinition? {
        let key = "\(journeyID)\u{0}\(version)"
        if let known = definitions.withLock({ $0[key] }) { return known }
        guard let stored = try store.journeyVersion(journeyID: journeyID, version: version),
            let definition = Self.parseStored(stored.definition)
        else { return nil }
        definitions.withLock { $0[key] = definition }
        return definition
    }

    func journeys(appID: String) throws -> AppJourneys {
        let now = clock.now
        if let known = apps.withLock({ $0[appID] }), now.timeIntervalSince(known.loadedAt) < refreshInterval.seconds {
            return known
        }
        var loaded = AppJourneys(loadedAt: now)
        var segments: [String: String]?
        for journey in try store.journeys(appID: appID) where journey.state != .draft {
            // Every version may still hold people waiting for an event or liable to exit on one.
            for version in 1...max(1, journey.version) {
                guard let definition = try definition(journeyID: journey.id, version: version) else { continue }
                loaded.signalling.formUnion(definition.exits.map(\.type))
                for step in definition.steps {
                    if case .wait(.forEvent(let match, _, _, _)) = step.kind { loaded.signalling.insert(match.type) }
                }
                if journey.state == .active && version == journey.version {
                    loaded.active.append((journey, definition))
                    switch definition.trigger {
                    case .event(let match): loaded.signalling.insert(match.type)
                    case .attribute(let key, _): loaded.attributeKeys.insert(key)
                    case .schedule: break
                    case .segment(let name, _):
                        let definitions = try segments ?? Self.segmentDefinitions(store.segments(appID: appID))
                        segments = definitions
                        guard let audience = try? AudienceExpression.parse("segment:\"\(name)\"", segments: definitions)
                        else { continue }
                        loaded.segmentAudiences[journey.id] = audience
                        // The events and attributes the segment reads are signalled, so a join they make is heard
                        // at once rather than at the next sweep.
                        loaded.signalling.formUnion(audience.eventTypes)
                        loaded.attributeKeys.formUnion(audience.attributeKeys)
                    }
                }
            }
        }
        apps.withLock { $0[appID] = loaded }
        return loaded
    }

    /// Segments by name, as `segment:NAME` is expanded from.
    static func segmentDefinitions(_ segments: [Segment]) -> [String: String] {
        Dictionary(segments.map { ($0.name, $0.expression) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets the app's entry, after a change to its journeys made here.
    func invalidate(appID: String) {
        _ = apps.withLock { $0.removeValue(forKey: appID) }
    }
}
