import Foundation
import Testing
import TidingsModel
import TidingsPostgres
import TidingsStore
import TidingsStoreTesting

@testable import TidingsCampaigns
@testable import TidingsServer

/// A journey send step that picks its winner: during the test period the test share gets the variants and
/// everyone else waits at the step; at the decision the winner is recorded with its numbers, the waiting people
/// get it and so does everyone after; the control group never gets a push.
@Suite struct JourneyStepWinnerTests {
    static let hour: Int64 = 3600

    /// A journey whose one step sends `a` or `b` (10% control), tested on `testShare` for an hour, converting
    /// on a purchase within an hour.
    static func journey(testShare: Double = 0.5, ifInconclusive: String? = nil) -> JSONValue {
        var winner: [String: JSONValue] = ["test_share": .double(testShare), "after": "1h"]
        if let ifInconclusive { winner["if_inconclusive"] = .string(ifInconclusive) }
        return JourneyFixture.journey(
            "go",
            [
                [
                    "id": "offer", "type": "send",
                    "message": [
                        "variants": [
                            ["id": "a", "content": ["title": "A"]], ["id": "b", "content": ["title": "B"]],
                        ],
                        "control": 0.1, "conversion": ["event": "purchase", "within": "1h"],
                        "winner": .object(winner),
                    ],
                ]
            ])
    }

    /// Where the documented draws put user `user` in the step's test: its arm, and whether it is tested.
    static func draw(_ user: String, journey id: String, testShare: Double = 0.5) -> (variant: String, tested: Bool) {
        let key = "journey:\(id):offer"
        let variant = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.1)
            .variant(splitKey: key, subject: .user(user))
        let tested = WinnerRule(testShare: testShare, afterSeconds: 3600, confidence: 0.95, ifInconclusive: .best)
            .isTested(splitKey: key, subject: .user(user))
        return (variant, tested)
    }

    /// Registers and enters `users` (one installation each, named as the user).
    static func enter(_ fixture: JourneyFixture, _ users: [String], seed: Int = 1) async throws {
        for (index, user) in users.enumerated() {
            try await fixture.register(user, seed: seed + index, user: user)
            try await fixture.emit("go", from: user, user: user)
        }
        try await fixture.settle()
    }

    /// The first of `candidates` whose draw `wanted` accepts.
    static func first(
        _ prefix: String, journey id: String, where wanted: ((variant: String, tested: Bool)) -> Bool
    ) throws -> String {
        try #require((0..<500).map { "\(prefix)\($0)" }.first { wanted(draw($0, journey: id)) })
    }

    static func purchase(_ fixture: JourneyFixture, by users: [String], at: Int64) throws {
        let events = users.map {
            TidingsEvent(type: EventType("purchase"), occurredAt: at, installationID: $0, userID: $0)
        }
        _ = try fixture.store.insertEvents(appID: "app_main", events: events, receivedAt: at)
    }

    @Test(arguments: StoreBackend.allCases)
    func theTestShareGetsVariantsTheRestWaitAndGetTheWinner(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let id = try await fixture.start(Self.journey())
        let startedAt = fixture.clock.now.millisecondsSince1970
        // The journey id keys the draws, so the control group's two kinds are picked, not left to chance.
        let users =
            (0..<40).map { "u\($0)" } + [
                try Self.first("tested-control", journey: id) { $0.tested && $0.variant == "control" },
                try Self.first("waiting-control", journey: id) { !$0.tested && $0.variant == "control" },
            ]
        try await Self.enter(fixture, users)
        let draws = Dictionary(uniqueKeysWithValues: users.map { ($0, Self.draw($0, journey: id)) })
        let tested = users.filter { draws[$0]!.tested }
        let waiting = users.filter { !draws[$0]!.tested }
        let control = users.filter { draws[$0]!.variant == "control" }
        #expect(!tested.isEmpty && !waiting.isEmpty)
        #expect(control.contains { draws[$0]!.tested } && control.contains { !draws[$0]!.tested })
        for user in users {
            let expected =
                draws[user]!.tested && draws[user]!.variant != "control" ? [draws[user]!.variant.uppercased()] : []
            #expect(fixture.titles(to: user) == expected, "\(user): \(draws[user]!)")
        }
        var step = JourneyFixture.step(try await fixture.journey(id), "offer")
        #expect(step["waiting"] == .integer(Int64(waiting.count)), "\(step)")
        #expect(step["winner"]?["state"] == "testing")
        #expect(step["winner"]?["decide_at"] == .integer(startedAt + 2 * Self.hour * 1000))

        // Every tested b converts, no a does.
        let sentAt = fixture.clock.now.millisecondsSince1970
        let convertedB = tested.filter { draws[$0]!.variant == "b" }
        try Self.purchase(fixture, by: convertedB, at: sentAt + 1_800_000)
        step = JourneyFixture.step(try await fixture.journey(id), "offer")
        let live = step["winner"]?["variants"]?.arrayValue ?? []
        #expect(live.first { $0["variant"] == "b" }?["converted"] == .integer(Int64(convertedB.count)), "\(live)")

        // After the test period, even someone the test share would take waits for the decision.
        try await fixture.advance(seconds: Self.hour)
        let late = try Self.first("late", journey: id) { $0.tested && $0.variant != "control" }
        try await Self.enter(fixture, [late], seed: 100)
        #expect(fixture.titles(to: late).isEmpty)

        let selector = JourneyStepWinnerSelector(store: fixture.store, clock: fixture.clock)
        fixture.clock.advance(by: .seconds(Self.hour - 1))
        #expect(try selector.runDue().isEmpty, "not before the last test sends had their window")
        try await fixture.settle()
        #expect(fixture.titles(to: waiting[0]).isEmpty, "still waiting")
        fixture.clock.advance(by: .seconds(1))
        let decided = try selector.runDue()
        #expect(decided.map(\.winner) == ["b"])
        #expect(try selector.runDue().isEmpty, "decided once")

        try await fixture.settle()
        for user in waiting + [late] {
            let expected = draws[user, default: Self.draw(user, journey: id)].variant == "control" ? [] : ["B"]
            #expect(fixture.titles(to: user) == expected, "\(user) waited and gets the winner, the control nothing")
        }
        let after = try Self.first("after", journey: id) { $0.variant != "control" }
        let afterControl = try Self.first("after", journey: id) { $0.variant == "control" }
        try await Self.enter(fixture, [after, afterControl], seed: 200)
        #expect(fixture.titles(to: after) == ["B"], "a later entrant gets the winner at once")
        #expect(fixture.titles(to: afterControl).isEmpty, "the control group stays out")

        step = JourneyFixture.step(try await fixture.journey(id), "offer")
        let winner = try #require(step["winner"])
        #expect(winner["state"] == "decided")
        #expect(winner["variant"] == "b")
        #expect(winner["inconclusive"] == false)
        #expect(winner["decided_at"] == .integer(startedAt + 2 * Self.hour * 1000))
        #expect(winner["version"] == 1)
        #expect(step["waiting"] == 0)
        let arms = winner["variants"]?.arrayValue ?? []
        #expect(arms.map { $0["variant"] } == ["a", "b", "control"])
        for arm in ["a", "b", "control"] {
            let members = tested.filter { draws[$0]!.variant == arm }.count
            let entry = arms.first { $0["variant"] == .string(arm) }
            #expect(entry?["sent"] == .integer(Int64(members)), "\(arm): \(winner)")
            #expect(entry?["converted"] == .integer(Int64(arm == "b" ? members : 0)), "\(arm)")
        }
        #expect(winner["decision"]?["significant"] == true)
        #expect(winner["decision"]?["sends"] == .integer(Int64(tested.count)))
    }

    @Test(arguments: StoreBackend.allCases)
    func anInconclusiveTestSendsTheFallback(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let id = try await fixture.start(Self.journey(ifInconclusive: "b"))
        let users = (0..<20).map { "u\($0)" }
        try await Self.enter(fixture, users)
        // No one converts: a leads b by nothing, and the rule says b.
        fixture.clock.advance(by: .seconds(2 * Self.hour))
        let decided = try JourneyStepWinnerSelector(store: fixture.store, clock: fixture.clock).runDue()
        #expect(decided.map(\.winner) == ["b"])
        try await fixture.settle()
        for user in users where !Self.draw(user, journey: id).tested {
            let expected = Self.draw(user, journey: id).variant == "control" ? [] : ["B"]
            #expect(fixture.titles(to: user) == expected, "\(user)")
        }
        let winner = JourneyFixture.step(try await fixture.journey(id), "offer")["winner"]
        #expect(winner?["inconclusive"] == true)
        #expect(winner?["variant"] == "b")
        #expect(winner?["decision"]?["best"] == "a")
    }

    /// A paused journey's test is decided at its time; the people waiting get the winner when it is resumed.
    @Test func aPausedJourneysTestIsDecidedAndItsPeopleGetTheWinnerOnResume() async throws {
        let fixture = try JourneyFixture(backend: .sqlite)
        let id = try await fixture.start(Self.journey(ifInconclusive: "b"))
        let users = (0..<20).map { "u\($0)" }
        try await Self.enter(fixture, users)
        let waiting = users.filter {
            !Self.draw($0, journey: id).tested && Self.draw($0, journey: id).variant != "control"
        }
        #expect(!waiting.isEmpty)
        #expect(try await fixture.call("POST", "/v1/journeys/\(id)/pause").status == 200)
        fixture.clock.advance(by: .seconds(2 * Self.hour))
        let decided = try JourneyStepWinnerSelector(store: fixture.store, clock: fixture.clock).runDue()
        #expect(decided.map(\.winner) == ["b"], "decided whatever the journey's state")
        try await fixture.settle()
        for user in waiting { #expect(fixture.titles(to: user).isEmpty, "\(user) is held while paused") }
        #expect(try await fixture.call("POST", "/v1/journeys/\(id)/start").status == 200)
        try await fixture.settle()
        for user in waiting { #expect(fixture.titles(to: user) == ["B"], "\(user) gets the winner on resume") }
    }

    /// Two instances both find the test due (a hand-over): the store keeps the first decision and refuses the
    /// second, so one winner is recorded.
    @Test func twoInstancesDecideOnce() async throws {
        let fixture = try JourneyFixture(backend: .postgres)
        let id = try await fixture.start(Self.journey())
        try await Self.enter(fixture, (0..<10).map { "u\($0)" })
        fixture.clock.advance(by: .seconds(2 * Self.hour))
        let postgres = try #require(fixture.store as? PostgresStore)
        let other = try PostgresStore(configuration: postgres.configuration)
        let first = JourneyStepWinnerSelector(store: fixture.store, clock: fixture.clock)
        let second = JourneyStepWinnerSelector(store: other, clock: fixture.clock)
        let pendingFirst = try fixture.store.dueJourneyStepTests(
            now: fixture.clock.now.millisecondsSince1970, limit: 10)
        let pendingSecond = try other.dueJourneyStepTests(now: fixture.clock.now.millisecondsSince1970, limit: 10)
        #expect(pendingFirst.count == 1 && pendingSecond == pendingFirst)
        async let a = Task { try first.decide(pendingFirst[0]) }.value
        async let b = Task { try second.decide(pendingSecond[0]) }.value
        let outcomes = try await [a, b]
        #expect(outcomes.compactMap { $0 }.count == 1, "one decision is recorded")
        let stored = try fixture.store.journeyStepTests(appID: "app_main", journeyID: id)
        #expect(stored.count == 1)
        #expect(stored[0].winner == outcomes.compactMap { $0 }.first?.winner)
        #expect(try other.dueJourneyStepTests(now: fixture.clock.now.millisecondsSince1970, limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func anInvalidWinnerIsRefusedWithItsPath(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        func journey(_ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
            var message = Self.journey()["steps"]?[0]?["message"]?.objectValue ?? [:]
            change(&message)
            return JourneyFixture.journey(
                "go", [JourneyFixture.wait("first", 60), ["id": "offer", "type": "send", "message": .object(message)]])
        }
        let cases: [(JSONValue, String)] = [
            (journey { $0["conversion"] = nil }, "steps[1].message.winner"),
            (journey { $0["variants"] = [["id": "a", "content": ["title": "A"]]] }, "steps[1].message.winner"),
            (journey { $0["winner"] = ["test_share": 1, "after": "1h"] }, "steps[1].message.winner.test_share"),
            (journey { $0["winner"] = ["test_share": 0, "after": "1h"] }, "steps[1].message.winner.test_share"),
            (journey { $0["winner"] = ["test_share": 0.2, "after": "10s"] }, "steps[1].message.winner.after"),
            (
                journey { $0["winner"] = ["test_share": 0.2, "after": "1h", "share": 1] },
                "steps[1].message.winner.share"
            ),
        ]
        for (definition, path) in cases {
            let reply = try await fixture.call("POST", "/v1/journeys", json: definition)
            #expect(reply.status == 400, "\(path): \(reply.json)")
            let paths = reply.json["error"]?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
            #expect(paths == [path], "\(reply.json)")
        }
        let valid = try await fixture.call("POST", "/v1/journeys:validate", json: journey { _ in })
        #expect(valid.json["valid"] == true, "\(valid.json)")
    }
}
