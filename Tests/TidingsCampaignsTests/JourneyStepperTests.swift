import Foundation
import Testing
import TidingsModel

@testable import TidingsCampaigns

/// The walk of a run: what it sends, where it waits and until when, and why it ends, from facts a table gives.
@Suite struct JourneyStepperTests {
    /// Answers from fixed facts and writes down every question, in order.
    struct RecordingFacts: JourneyFacts {
        final class Log {
            var calls: [String] = []
        }

        var emittedTypes: Set<String> = []
        var audiences: Set<String> = []
        var zone: TimeZone?
        let log = Log()

        func emitted(_ match: JourneyEventMatch, since: Int64) throws -> Bool {
            log.calls.append("emitted \(match.type) since \(since)")
            return emittedTypes.contains(match.type)
        }

        func matches(audience: String) throws -> Bool {
            log.calls.append("audience \(audience)")
            return audiences.contains(audience)
        }

        func timeZone() throws -> TimeZone? {
            log.calls.append("time zone")
            return zone
        }
    }

    static func send(_ id: String, next: String? = nil) -> JourneyStep {
        JourneyStep(id: id, next: next, kind: .send(message: ["content": ["title": .string(id)]]))
    }

    static func wait(_ id: String, _ wait: JourneyWait, next: String? = nil) -> JourneyStep {
        JourneyStep(id: id, next: next, kind: .wait(wait))
    }

    static func stepper(
        _ steps: [JourneyStep], exits: [JourneyEventMatch] = [], fallbackTimeZone: String? = nil
    ) -> JourneyStepper {
        JourneyStepper(
            journeyID: "jrn_1",
            definition: JourneyDefinition(
                name: "Test", trigger: .event(JourneyEventMatch(type: "sign_up")), exits: exits, steps: steps,
                fallbackTimeZone: fallbackTimeZone))
    }

    static let enteredAt: Int64 = 1_700_000_000_000
    static let now: Int64 = 1_700_000_600_000
    static let purchase = JourneyEventMatch(type: "purchase")

    static func advance(
        _ stepper: JourneyStepper, from step: String?, subject: String = "user:u1", now: Int64 = now,
        facts: RecordingFacts = RecordingFacts()
    ) throws -> JourneyAdvance {
        try stepper.advance(from: step, subject: subject, enteredAt: enteredAt, now: now, facts: facts)
    }

    /// Unix milliseconds of an ISO 8601 instant.
    static func instant(_ text: String) throws -> Int64 {
        try #require(ISO8601DateFormatter().date(from: text)).millisecondsSince1970
    }

    // MARK: Sends and waits

    @Test func sendsAreCollectedInOrderUntilAWait() throws {
        let stepper = Self.stepper([
            Self.send("a"), Self.send("b"), Self.wait("pause", .duration(seconds: 3600)), Self.send("c"),
        ])
        let advance = try Self.advance(stepper, from: "a")
        #expect(advance.visited == ["a", "b", "pause"])
        #expect(advance.sends == ["a", "b"])
        #expect(
            advance.outcome
                == .waiting(at: "pause", until: Self.now + 3_600_000, resume: "c", event: nil, onEvent: nil))
    }

    @Test func aRunResumesFromTheStepItIsDueAt() throws {
        let stepper = Self.stepper([
            Self.send("a"), Self.wait("pause", .duration(seconds: 60)), Self.send("b"), Self.send("c"),
        ])
        let advance = try Self.advance(stepper, from: "b")
        #expect(advance.visited == ["b", "c"])
        #expect(advance.sends == ["b", "c"])
        #expect(advance.outcome == .ended(at: "c", reason: "completed"))
    }

    @Test func aDurationWaitAtTheEndResumesToTheEnd() throws {
        let stepper = Self.stepper([Self.wait("last", .duration(seconds: 90 * 86_400))])
        #expect(
            try Self.advance(stepper, from: "last").outcome
                == .waiting(at: "last", until: Self.now + 90 * 86_400_000, resume: nil, event: nil, onEvent: nil))
    }

    @Test func aWaitsNextOverridesTheListOrder() throws {
        let stepper = Self.stepper([
            Self.wait("pause", .duration(seconds: 5), next: "c"), Self.send("b"), Self.send("c"),
        ])
        #expect(
            try Self.advance(stepper, from: "pause").outcome
                == .waiting(at: "pause", until: Self.now + 5000, resume: "c", event: nil, onEvent: nil))
    }

    @Test func anEventWaitGoesItsOwnWays() throws {
        let bought = JourneyEventMatch(type: "purchase", value: "sku-1")
        let stepper = Self.stepper([
            Self.wait("bought", .forEvent(bought, timeoutSeconds: 86400, onEvent: "thanks", onTimeout: "last_call")),
            Self.send("reminder"), Self.send("last_call"), Self.send("thanks"),
        ])
        #expect(
            try Self.advance(stepper, from: "bought").outcome
                == .waiting(
                    at: "bought", until: Self.now + 86_400_000, resume: "last_call", event: bought, onEvent: "thanks"))
    }

    @Test func anEventWaitsWaysDefaultToTheNextStep() throws {
        let wait = JourneyWait.forEvent(Self.purchase, timeoutSeconds: 60, onEvent: nil, onTimeout: nil)
        #expect(
            try Self.advance(Self.stepper([Self.wait("w", wait), Self.send("after")]), from: "w").outcome
                == .waiting(at: "w", until: Self.now + 60_000, resume: "after", event: Self.purchase, onEvent: "after"))
        #expect(
            try Self.advance(
                Self.stepper([Self.wait("w", wait, next: "c"), Self.send("b"), Self.send("c")]), from: "w"
            )
            .outcome
                == .waiting(at: "w", until: Self.now + 60_000, resume: "c", event: Self.purchase, onEvent: "c"))
        #expect(
            try Self.advance(Self.stepper([Self.send("a"), Self.wait("w", wait)]), from: "w").outcome
                == .waiting(at: "w", until: Self.now + 60_000, resume: nil, event: Self.purchase, onEvent: nil))
        let onlyTimeout = JourneyWait.forEvent(Self.purchase, timeoutSeconds: 60, onEvent: nil, onTimeout: "c")
        #expect(
            try Self.advance(Self.stepper([Self.wait("w", onlyTimeout), Self.send("b"), Self.send("c")]), from: "w")
                .outcome == .waiting(at: "w", until: Self.now + 60_000, resume: "c", event: Self.purchase, onEvent: "b")
        )
    }

    // MARK: Waiting until a time of day

    /// The instant a wait until `clock` ends when it starts at `now` for a person in `zone`.
    static func localWait(
        _ clock: String, now: String, zone: String?, fallback: String? = nil
    ) throws -> (until: Int64, calls: [String]) {
        let stepper = Self.stepper(
            [Self.wait("morning", .untilLocalTime(try #require(JourneyWallClock(clock)))), Self.send("hello")],
            fallbackTimeZone: fallback)
        let facts = RecordingFacts(zone: zone.flatMap { TimeZone(identifier: $0) })
        let advance = try Self.advance(stepper, from: "morning", now: try instant(now), facts: facts)
        guard case .waiting(let at, let until, let resume, let event, let onEvent) = advance.outcome else {
            Issue.record("not waiting: \(advance.outcome)")
            return (0, facts.log.calls)
        }
        #expect(at == "morning")
        #expect(resume == "hello")
        #expect(event == nil)
        #expect(onEvent == nil)
        return (until, facts.log.calls)
    }

    @Test func untilLocalTimeUsesThePersonsZone() throws {
        // 10:00 in Tokyo: 09:00 has passed today, so tomorrow's (00:00 UTC).
        let later = try Self.localWait("09:00", now: "2026-12-06T01:00:00Z", zone: "Asia/Tokyo")
        #expect(later.until == (try Self.instant("2026-12-07T00:00:00Z")))
        #expect(later.calls.contains("time zone"))
        // 08:00 in Tokyo: today's.
        let earlier = try Self.localWait("09:00", now: "2026-12-05T23:00:00Z", zone: "Asia/Tokyo")
        #expect(earlier.until == (try Self.instant("2026-12-06T00:00:00Z")))
        // The person's zone wins over the journey's fallback.
        let both = try Self.localWait(
            "09:00", now: "2026-12-05T23:00:00Z", zone: "Asia/Tokyo", fallback: "America/Los_Angeles")
        #expect(both.until == (try Self.instant("2026-12-06T00:00:00Z")))
    }

    @Test func untilLocalTimeCrossesTheDayBoundary() throws {
        // 23:30 in Tokyo on 6 December; 00:15 is next on 7 December, 15:15 UTC on the 6th.
        let wait = try Self.localWait("00:15", now: "2026-12-06T14:30:00Z", zone: "Asia/Tokyo")
        #expect(wait.until == (try Self.instant("2026-12-06T15:15:00Z")))
        // Exactly at the time: the next one, a day later.
        let exact = try Self.localWait("00:15", now: "2026-12-06T15:15:00Z", zone: "Asia/Tokyo")
        #expect(exact.until == (try Self.instant("2026-12-07T15:15:00Z")))
    }

    @Test func untilLocalTimeFallsBackToTheJourneysZoneThenUTC() throws {
        // No zone of the person: the journey's (Los Angeles, UTC-8 in December).
        let fallback = try Self.localWait(
            "09:00", now: "2026-12-06T12:00:00Z", zone: nil, fallback: "America/Los_Angeles")
        #expect(fallback.until == (try Self.instant("2026-12-06T17:00:00Z")))
        // Neither: UTC.
        let utc = try Self.localWait("09:00", now: "2026-12-06T12:00:00Z", zone: nil)
        #expect(utc.until == (try Self.instant("2026-12-07T09:00:00Z")))
    }

    @Test func aTimeSkippedBySpringForwardIsTheFirstInstantAfterTheJump() throws {
        // New York, 8 March 2026: 02:00 EST jumps to 03:00 EDT, so 02:30 never shows; 03:00 EDT is 07:00 UTC.
        let wait = try Self.localWait("02:30", now: "2026-03-08T05:00:00Z", zone: "America/New_York")
        #expect(wait.until == (try Self.instant("2026-03-08T07:00:00Z")))
        // The day after, 02:30 EDT exists again.
        let dayAfter = try Self.localWait("02:30", now: "2026-03-08T12:00:00Z", zone: "America/New_York")
        #expect(dayAfter.until == (try Self.instant("2026-03-09T06:30:00Z")))
    }

    @Test func aTimeRepeatedByFallBackIsItsFirstShowing() throws {
        // New York, 1 November 2026: 01:30 shows twice, first in EDT (05:30 UTC), then in EST.
        let wait = try Self.localWait("01:30", now: "2026-11-01T04:00:00Z", zone: "America/New_York")
        #expect(wait.until == (try Self.instant("2026-11-01T05:30:00Z")))
    }

    // MARK: Branches

    static func branchStepper(_ condition: JourneyBranch.Condition, then: String?, otherwise: String?)
        -> JourneyStepper
    {
        stepper([
            JourneyStep(
                id: "fork", kind: .branch(JourneyBranch(condition: condition, then: then, otherwise: otherwise))),
            send("next"), send("yes", next: "done"), send("no", next: "done"), JourneyStep(id: "done", kind: .exit),
        ])
    }

    @Test func aBranchOnAnAudienceAsksTheFacts() throws {
        let gold = "plan == 'gold'"
        let stepper = Self.branchStepper(.audience(gold), then: "yes", otherwise: "no")
        let member = RecordingFacts(audiences: [gold])
        #expect(try Self.advance(stepper, from: "fork", facts: member).sends == ["yes"])
        #expect(member.log.calls == ["audience plan == 'gold'"])
        let other = try Self.advance(stepper, from: "fork")
        #expect(other.visited == ["fork", "no", "done"])
        #expect(other.sends == ["no"])
        #expect(other.outcome == .ended(at: "done", reason: "exit_step"))
    }

    @Test func aBranchsWaysDefaultToTheNextStep() throws {
        let gold = "plan == 'gold'"
        let noElse = Self.branchStepper(.audience(gold), then: "yes", otherwise: nil)
        #expect(try Self.advance(noElse, from: "fork").sends == ["next", "yes"])
        let noThen = Self.branchStepper(.audience(gold), then: nil, otherwise: "no")
        #expect(
            try Self.advance(noThen, from: "fork", facts: RecordingFacts(audiences: [gold])).sends == ["next", "yes"])
    }

    @Test func aBranchOnAnEventLooksSinceTheRunEntered() throws {
        let opened = JourneyEventMatch(type: "screen_open", value: "cart")
        let stepper = Self.branchStepper(.event(opened), then: "yes", otherwise: "no")
        let facts = RecordingFacts(emittedTypes: ["screen_open"])
        #expect(try Self.advance(stepper, from: "fork", facts: facts).sends == ["yes"])
        #expect(facts.log.calls == ["emitted screen_open since \(Self.enteredAt)"])
        #expect(try Self.advance(stepper, from: "fork").sends == ["no"])
    }

    // MARK: Splits

    static let abPaths = [
        JourneySplitPath(weight: 70, next: "a", isControl: false),
        JourneySplitPath(weight: 30, next: "b", isControl: false),
    ]

    @Test func aSplitDrawIsTheSameForTheSamePerson() throws {
        let stepper = Self.stepper([
            JourneyStep(id: "test", kind: .split(Self.abPaths)), Self.send("a", next: "end"), Self.send("b"),
            JourneyStep(id: "end", kind: .exit),
        ])
        for index in 0..<50 {
            let subject = "user:u\(index)"
            let first = try Self.advance(stepper, from: "test", subject: subject)
            let again = try Self.advance(stepper, from: "test", subject: subject, now: Self.now + 86_400_000)
            #expect(first == again)
            #expect(first.sends == ["a"] || first.sends == ["b"])
        }
    }

    @Test func aSplitFollowsItsWeights() {
        var counts = [0, 0]
        for index in 0..<10_000 {
            let path = JourneyStepper.draw(Self.abPaths, journeyID: "jrn_1", stepID: "test", subject: "user:u\(index)")
            counts[path.next == "a" ? 0 : 1] += 1
        }
        #expect((6_800...7_200).contains(counts[0]), "70% path drew \(counts[0]) of 10000")
        #expect(counts[0] + counts[1] == 10_000)
    }

    @Test func aSplitOfThreeFollowsEachWeight() {
        let paths = [
            JourneySplitPath(weight: 50, next: "a", isControl: false),
            JourneySplitPath(weight: 30, next: "b", isControl: false),
            JourneySplitPath(weight: 20, next: nil, isControl: true),
        ]
        var counts: [String: Int] = [:]
        for index in 0..<10_000 {
            let path = JourneyStepper.draw(paths, journeyID: "jrn_1", stepID: "test", subject: "installation:i\(index)")
            counts[path.next ?? "control", default: 0] += 1
        }
        #expect((4_800...5_200).contains(counts["a"] ?? 0), "\(counts)")
        #expect((2_800...3_200).contains(counts["b"] ?? 0), "\(counts)")
        #expect((1_800...2_200).contains(counts["control"] ?? 0), "\(counts)")
    }

    @Test func aSplitDrawDependsOnTheJourneyAndTheStep() {
        let subjects = (0..<200).map { "user:u\($0)" }
        func draws(journey: String, step: String) -> [String?] {
            subjects.map { JourneyStepper.draw(Self.abPaths, journeyID: journey, stepID: step, subject: $0).next }
        }
        let base = draws(journey: "jrn_1", step: "test")
        #expect(base != draws(journey: "jrn_2", step: "test"))
        #expect(base != draws(journey: "jrn_1", step: "test2"))
    }

    @Test func theControlGroupEndsWithControl() throws {
        let stepper = Self.stepper([
            Self.send("before"),
            JourneyStep(
                id: "holdout",
                kind: .split([
                    JourneySplitPath(weight: 1, next: nil, isControl: true),
                    JourneySplitPath(weight: 1, next: nil, isControl: false),
                ])),
            Self.send("after"),
        ])
        var reasons: [String: Int] = [:]
        for index in 0..<200 {
            let advance = try Self.advance(stepper, from: "before", subject: "installation:i\(index)")
            switch advance.outcome {
            case .ended(at: "holdout", reason: "control"):
                #expect(advance.sends == ["before"])
                reasons["control", default: 0] += 1
            case .ended(at: "after", reason: "completed"):
                #expect(advance.sends == ["before", "after"])
                reasons["completed", default: 0] += 1
            default:
                Issue.record("unexpected \(advance.outcome)")
            }
        }
        #expect((reasons["control"] ?? 0) > 50)
        #expect((reasons["completed"] ?? 0) > 50)
    }

    // MARK: Endings

    @Test func anExitStepEndsWithExitStep() throws {
        let stepper = Self.stepper([Self.send("a"), JourneyStep(id: "stop", kind: .exit), Self.send("never")])
        let advance = try Self.advance(stepper, from: "a")
        #expect(advance.visited == ["a", "stop"])
        #expect(advance.sends == ["a"])
        #expect(advance.outcome == .ended(at: "stop", reason: "exit_step"))
    }

    @Test func pastTheLastStepIsCompleted() throws {
        let stepper = Self.stepper([Self.send("a"), Self.send("b")])
        #expect(try Self.advance(stepper, from: "b").outcome == .ended(at: "b", reason: "completed"))
        // A walk through every step without a wait still reaches the end.
        #expect(
            try Self.advance(stepper, from: "a")
                == JourneyAdvance(
                    visited: ["a", "b"], sends: ["a", "b"], outcome: .ended(at: "b", reason: "completed")))
        let past = try Self.advance(stepper, from: nil)
        #expect(past == JourneyAdvance(visited: [], sends: [], outcome: .ended(at: "", reason: "completed")))
    }

    @Test func nextOverridesTheListOrder() throws {
        let stepper = Self.stepper([Self.send("a", next: "c"), Self.send("b"), Self.send("c")])
        let advance = try Self.advance(stepper, from: "a")
        #expect(advance.visited == ["a", "c"])
        #expect(advance.sends == ["a", "c"])
        #expect(advance.outcome == .ended(at: "c", reason: "completed"))
    }

    @Test func anExitEventEndsTheRunBeforeAnySend() throws {
        let stepper = Self.stepper(
            [Self.send("a"), Self.send("b")], exits: [JourneyEventMatch(type: "uninstall"), Self.purchase])
        let facts = RecordingFacts(emittedTypes: ["purchase"])
        let advance = try Self.advance(stepper, from: "a", facts: facts)
        #expect(advance == JourneyAdvance(visited: [], sends: [], outcome: .ended(at: "a", reason: "event:purchase")))
        #expect(
            facts.log.calls == [
                "emitted uninstall since \(Self.enteredAt)", "emitted purchase since \(Self.enteredAt)",
            ])
    }

    @Test func exitConditionsAreCheckedAtEveryStep() throws {
        let stepper = Self.stepper(
            [Self.send("a"), Self.send("b"), Self.wait("w", .duration(seconds: 1))], exits: [Self.purchase])
        let facts = RecordingFacts()
        let advance = try Self.advance(stepper, from: "a", facts: facts)
        #expect(advance.sends == ["a", "b"])
        #expect(facts.log.calls == Array(repeating: "emitted purchase since \(Self.enteredAt)", count: 3))
        // Past the end, an exit event still wins over completing.
        #expect(
            try Self.advance(stepper, from: nil, facts: RecordingFacts(emittedTypes: ["purchase"])).outcome
                == .ended(at: "", reason: "event:purchase"))
    }

    @Test func theExitReasonNamesTheEventType() {
        #expect(JourneyStepper.exitReason(JourneyEventMatch(type: "purchase", value: "sku-1")) == "event:purchase")
    }

    /// A question the engine cannot answer stops the walk: nothing is decided on a guess.
    @Test func aFailingFactStopsTheWalk() {
        struct Unreachable: Error {}
        struct FailingFacts: JourneyFacts {
            func emitted(_ match: JourneyEventMatch, since: Int64) throws -> Bool { throw Unreachable() }
            func matches(audience: String) throws -> Bool { throw Unreachable() }
            func timeZone() throws -> TimeZone? { throw Unreachable() }
        }
        let stepper = Self.branchStepper(.audience("plan == 'gold'"), then: "yes", otherwise: "no")
        #expect(throws: Unreachable.self) {
            try stepper.advance(from: "fork", subject: "user:u1", enteredAt: 0, now: 0, facts: FailingFacts())
        }
    }
}
