import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Journey send steps' split tests, the same on every ``Store`` backend: started once per (journey, version,
/// step), due at their time, decided once, per app.
@Suite struct StoreJourneyStepTestTests {
    static func test(version: Int = 1, step: String = "offer", startedAt: Int64, app: String = "app_a")
        -> JourneyStepTestRecord
    {
        JourneyStepTestRecord(
            appID: app, journeyID: "jny_1", version: version, stepID: step, startedAt: startedAt,
            testEndsAt: startedAt + 100, decideAt: startedAt + 200, rule: "{\"at\":\(startedAt)}")
    }

    @Test(arguments: StoreBackend.allCases)
    func theFirstStartIsKeptAndTheDecisionIsRecordedOnce(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let first = try store.startJourneyStepTest(Self.test(startedAt: 1000))
        #expect(first == Self.test(startedAt: 1000))
        // A second instance reaching the step a moment later finds the test that started first.
        #expect(try store.startJourneyStepTest(Self.test(startedAt: 1005)) == first)
        let otherVersion = try store.startJourneyStepTest(Self.test(version: 2, startedAt: 1010))
        #expect(otherVersion.startedAt == 1010, "a new version tests again")

        #expect(try store.dueJourneyStepTests(now: 1199, limit: 10).isEmpty)
        #expect(try store.dueJourneyStepTests(now: 1210, limit: 10).map(\.version) == [1, 2])
        #expect(try store.dueJourneyStepTests(now: 1210, limit: 1).map(\.version) == [1])

        #expect(
            try store.recordJourneyStepDecision(
                appID: "app_b", journeyID: "jny_1", version: 1, stepID: "offer", decidedAt: 1200, winner: "a",
                decision: "{}") == false, "another app's journey is not touched")
        #expect(
            try store.recordJourneyStepDecision(
                appID: "app_a", journeyID: "jny_1", version: 1, stepID: "offer", decidedAt: 1200, winner: "b",
                decision: "{\"variant\":\"b\"}"))
        #expect(
            try store.recordJourneyStepDecision(
                appID: "app_a", journeyID: "jny_1", version: 1, stepID: "offer", decidedAt: 1201, winner: "a",
                decision: "{}") == false, "decided once")
        let stored = try store.journeyStepTests(appID: "app_a", journeyID: "jny_1")
        #expect(stored.map(\.version) == [1, 2])
        #expect(stored[0].winner == "b" && stored[0].decidedAt == 1200 && stored[0].decision == "{\"variant\":\"b\"}")
        #expect(stored[1].winner == nil && stored[1].decidedAt == nil)
        #expect(try store.startJourneyStepTest(Self.test(startedAt: 2000)).winner == "b", "started reads the decision")
        #expect(try store.dueJourneyStepTests(now: 5000, limit: 10).map(\.version) == [2])
        #expect(try store.journeyStepTests(appID: "app_b", journeyID: "jny_1").isEmpty)
        #expect(try store.journeyStepTestSends(appID: "app_a", journeyID: "jny_1", version: 1, stepID: "offer").isEmpty)
    }
}
