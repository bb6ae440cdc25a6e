import Testing
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// What a person reaching a journey send step that picks a winner gets, on the step's stored test and the time:
/// the message as written in the test share during the test period, a wait otherwise, the winner once decided.
@Suite struct JourneyStepTestTests {
    static let message: [String: JSONValue] = [
        "variants": [
            ["id": "a", "content": ["title": "A"]], ["id": "b", "content": ["title": "B"]],
        ],
        "control": 0.1, "conversion": ["event": "purchase", "within": "1h"],
        "winner": ["test_share": 0.3, "after": "2h"],
    ]
    static let hour: Int64 = 3_600_000

    static func test() throws -> JourneyStepTest { try #require(JourneyStepTest(message: message)) }

    @Test func aMessageWithoutAWinnerIsNoTest() {
        var plain = Self.message
        plain["winner"] = nil
        #expect(JourneyStepTest(message: plain) == nil)
        var null = Self.message
        null["winner"] = .null
        #expect(JourneyStepTest(message: null) == nil)
    }

    @Test func theDecisionIsDueWhenTheTestPeriodsLastSendsHadTheirConversionWindow() throws {
        let test = try Self.test()
        #expect(test.variants == ["a", "b"])
        let record = test.record(appID: "app", journeyID: "jny_1", version: 2, stepID: "offer", startedAt: 1000)
        #expect(record.testEndsAt == 1000 + 2 * Self.hour)
        #expect(record.decideAt == 1000 + 3 * Self.hour)
        #expect(record.decidedAt == nil && record.winner == nil)
        #expect(JourneyStepTest.decode(record.rule) == test, "the stored rule reads back")
        #expect(JourneyStepTest.decode("{}") == nil)
    }

    @Test func theTestShareGetsTheMessageAndTheRestWaitUntilTheDecision() throws {
        let test = try Self.test()
        let record = test.record(appID: "app", journeyID: "jny_1", version: 1, stepID: "offer", startedAt: 0)
        let people = (0..<200).map { "user:u\($0)" }
        let key = JourneyStepTest.splitKey(journeyID: "jny_1", stepID: "offer")
        var tested = 0
        for person in people {
            let drawn = test.rule.isTested(splitKey: key, subject: .user(String(person.dropFirst(5))))
            let during = test.turn(subject: person, journeyID: "jny_1", stepID: "offer", test: record, now: Self.hour)
            #expect(during == (drawn ? .test : .hold(until: record.decideAt)), "\(person)")
            if drawn { tested += 1 }
            // After the test period and before the decision, no one is tested any more.
            let late = test.turn(
                subject: person, journeyID: "jny_1", stepID: "offer", test: record, now: record.testEndsAt)
            #expect(late == .hold(until: record.decideAt), "\(person)")
        }
        #expect((40...80).contains(tested), "about 30% of 200: \(tested)")
        // Due but not yet recorded (the leader decides at its next look): asked again shortly.
        let overdue = record.decideAt + 1
        #expect(
            test.turn(subject: people[0], journeyID: "jny_1", stepID: "offer", test: record, now: overdue)
                == .hold(until: overdue + JourneyStepTest.recheckMilliseconds))
        var decided = record
        decided.winner = "b"
        for person in people.prefix(20) {
            #expect(
                test.turn(subject: person, journeyID: "jny_1", stepID: "offer", test: decided, now: overdue)
                    == .winner("b"))
        }
    }

    @Test func anInstallationIsDrawnAsCampaignsDrawIt() throws {
        let test = try Self.test()
        let record = test.record(appID: "app", journeyID: "j", version: 1, stepID: "s", startedAt: 0)
        for index in 0..<50 {
            let drawn = test.rule.isTested(splitKey: "journey:j:s", subject: .installation("inst-\(index)"))
            let turn = test.turn(
                subject: "installation:inst-\(index)", journeyID: "j", stepID: "s", test: record, now: 0)
            #expect((turn == .test) == drawn)
        }
    }
}
