import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore

/// `UninstallCheckScheduler`: one check per app per interval, its deliveries spread over the interval, and a
/// schedule read from the store so a restart neither repeats nor skips one.
@Suite struct UninstallScheduleTests {
    /// Four installations with tokens and one without in the main app, two with tokens in the other.
    static func fixture() async throws -> MessageFixture {
        let fixture = try MessageFixture()
        for (index, id) in ["a", "b", "c", "d"].enumerated() { try await fixture.register(id, seed: index + 1) }
        try await fixture.harness.register("no-token", ["consents": ["notifications": true]])
        for (index, id) in ["x", "y"].enumerated() {
            try await fixture.harness.register(
                id, ["fcm_token": .string("fcm-\(index)"), "platform": "android"], key: fixture.harness.otherAppKey)
        }
        return fixture
    }

    static func scheduler(_ fixture: MessageFixture, interval: Duration) -> UninstallCheckScheduler {
        UninstallCheckScheduler(store: fixture.store, interval: interval, clock: fixture.clock, logger: .disabled())
    }

    /// Every pending delivery due by `until`, by app, in the order they fall due (claims them).
    static func due(_ store: any Store, until: Int64) throws -> [String: [MessageDelivery]] {
        let claimed = try store.claimDeliveries(worker: "test", limit: 10_000, now: until, leaseUntil: Int64.max / 2)
        return Dictionary(grouping: claimed, by: \.appID)
    }

    @Test(arguments: [Duration.seconds(60), .seconds(3600), .seconds(7 * 86_400)])
    func oneCheckPerAppSpreadAcrossTheInterval(_ interval: Duration) async throws {
        let fixture = try await Self.fixture()
        let start = fixture.harness.now
        let intervalMilliseconds = Int64(interval.components.seconds) * 1000
        #expect(try Self.scheduler(fixture, interval: interval).runDue() == 2)

        // At the start only the first of each app is due.
        let now = try Self.due(fixture.store, until: start)
        #expect(now.mapValues(\.count) == ["app_main": 1, "app_other": 1])

        let all = try Self.due(fixture.store, until: start + 10 * intervalMilliseconds)
        let main = (now["app_main"] ?? []) + (all["app_main"] ?? [])
        let other = (now["app_other"] ?? []) + (all["app_other"] ?? [])
        #expect(Set(main.map(\.installationID)) == ["a", "b", "c", "d"], "the installation without a token is out")
        #expect(Set(other.map(\.installationID)) == ["x", "y"])
        for deliveries in [main, other] {
            #expect(Set(deliveries.map(\.messageID)).count == 1, "one check per app")
            let times = deliveries.map(\.notBefore)
            #expect(times.first == start)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
            #expect(try #require(times.last) < start + intervalMilliseconds)
            // Evenly: each step is the interval over the number of targets.
            let step = intervalMilliseconds / Int64(times.count)
            #expect(times == times.indices.map { start + Int64($0) * step })
        }
        let messageID = try #require(main.first?.messageID)
        let message = try #require(try fixture.store.message(appID: "app_main", messageID: messageID))
        #expect(message.kind == .uninstallCheck)
        #expect(message.createdAt == start)
        #expect(try fixture.store.lastMessageCreated(appID: "app_main", kind: .uninstallCheck) == start)
        #expect(try fixture.store.lastMessageCreated(appID: "app_main", kind: .alert) == nil)
    }

    @Test func noSecondCheckWithinTheIntervalAlsoAfterARestartButOneAfterIt() async throws {
        let fixture = try await Self.fixture()
        let interval = Duration.seconds(3600)
        let scheduler = Self.scheduler(fixture, interval: interval)
        #expect(try scheduler.runDue() == 2)
        #expect(try scheduler.runDue() == 0)

        fixture.clock.advance(by: .seconds(3599))
        #expect(try scheduler.runDue() == 0)
        // A restart: a new scheduler on the same store reads the schedule back.
        #expect(try Self.scheduler(fixture, interval: interval).runDue() == 0)

        fixture.clock.advance(by: .seconds(1))
        let restarted = Self.scheduler(fixture, interval: interval)
        #expect(try restarted.runDue() == 2)
        #expect(try restarted.runDue() == 0)
        #expect(try scheduler.runDue() == 0, "the other scheduler sees the new checks too")
        #expect(try fixture.store.lastMessageCreated(appID: "app_main", kind: .uninstallCheck) == fixture.harness.now)
    }

    @Test func aCheckMadeThroughTheAPICountsAsTheAppsLast() async throws {
        let fixture = try await Self.fixture()
        let reply = try await fixture.harness.call("POST", "/v1/uninstall-checks", key: fixture.harness.serverKey)
        #expect(reply.status == 202)
        fixture.clock.advance(by: .seconds(60))
        let scheduler = Self.scheduler(fixture, interval: .seconds(3600))
        #expect(try scheduler.runDue() == 1, "only the other app is due")
        #expect(try fixture.store.lastMessageCreated(appID: "app_other", kind: .uninstallCheck) == fixture.harness.now)
        fixture.clock.advance(by: .seconds(3540))
        #expect(try scheduler.runDue() == 1, "the main app is due an interval after its API check")
    }

    @Test func aCampaignDoesNotCountAsACheck() async throws {
        let fixture = try await Self.fixture()
        let sent = try await fixture.send(MessageFixture.alert(["all": true]))
        #expect(sent.status == 202, "\(sent.json)")
        #expect(try Self.scheduler(fixture, interval: .seconds(3600)).runDue() == 2)
    }

    @Test func installationsWithoutTokensAreNotTargets() async throws {
        let fixture = try MessageFixture()
        try await fixture.harness.register("bare", ["consents": ["notifications": true], "timezone": "Asia/Tokyo"])
        try await fixture.register("removed", seed: 7)
        let removed = try await fixture.harness.call(
            "DELETE", "/v1/installations/removed/tokens/apns", key: fixture.harness.appKey)
        #expect(removed.status == 200)
        try await fixture.register("kept", seed: 8)

        let start = fixture.harness.now
        #expect(try Self.scheduler(fixture, interval: .seconds(600)).runDue() == 2)
        let deliveries = try Self.due(fixture.store, until: start + 600_000)
        #expect(deliveries["app_main"]?.map(\.installationID) == ["kept"])
        #expect(deliveries["app_main"]?.first?.notBefore == start)
        #expect(deliveries["app_other"] == nil, "an app with no installations gets an empty check")
        #expect(try fixture.store.lastMessageCreated(appID: "app_other", kind: .uninstallCheck) == start)
    }
}
