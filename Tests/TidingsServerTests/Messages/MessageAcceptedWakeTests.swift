import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsServer
import TidingsTesting

/// A message accepted due now starts sending at once, not at the resolver's and the workers' next poll. The
/// clock here never moves, so anything that waited for a poll would wait forever: what goes out, goes out
/// because it was woken.
@Suite struct MessageAcceptedWakeTests {
    /// More than the API resolves itself in the request (its first chunk of 1,000), so the rest is left to
    /// the background resolver.
    static let audience = CampaignResolver.Configuration().chunkSize + 5

    static func registerAudience(_ fixture: MessageFixture) async throws {
        // A token of its own each: the harness's seeded tokens repeat after 256.
        for index in 1...audience {
            try await fixture.register(
                "inst-\(index)", seed: index, ["apns_token": .string(String(format: "%064x", index))])
        }
    }

    static func waitFor(within seconds: Int = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    static func targets(_ fixture: MessageFixture, _ messageID: String) async throws -> Int64? {
        try await fixture.status(messageID).count("targets")
    }

    /// An idle resolver resolves nothing until it polls again; ``CampaignResolver/wake()`` ends the wait.
    @Test func aWakeEndsTheResolversIdleWait() async throws {
        let fixture = try MessageFixture()
        try await Self.registerAudience(fixture)
        let resolver = CampaignResolver(store: fixture.store, clock: fixture.clock)
        let running = Task { await resolver.run() }
        #expect(try await Self.waitFor { fixture.clock.sleeperCount == 1 }, "the resolver found nothing and sleeps")

        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        #expect(reply.status == 202)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        #expect(reply.json["targets"] == 1000, "the request resolved its first chunk itself")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await Self.targets(fixture, messageID) == 1000, "the rest waits for the resolver's poll")

        resolver.wake()
        #expect(try await Self.waitFor { try await Self.targets(fixture, messageID) == Int64(Self.audience) })
        #expect(try await Self.waitFor { fixture.clock.sleeperCount == 1 }, "done, it sleeps again")
        running.cancel()
        await running.value
        #expect(fixture.clock.sleeperCount == 0, "cancelling the task ends its sleep")
    }

    /// Through the server's wiring (``TidingsAPI/whenMessageAccepted(_:)`` to
    /// ``FanoutService/messageAccepted()``): the POST wakes the resolver, for the rest of the audience, and the
    /// workers, for what is written, so every push goes out while the clock stands still.
    @Test func anAcceptedMessageIsSentWithoutWaitingForAPoll() async throws {
        let fixture = try MessageFixture()
        try await Self.registerAudience(fixture)
        let fanout = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        fixture.harness.api.whenMessageAccepted { fanout.messageAccepted() }
        fanout.start()
        #expect(try await Self.waitFor { fixture.clock.sleeperCount == 2 }, "the worker and the resolver idle")

        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        #expect(try await Self.waitFor { fixture.provider.pushes.count == Self.audience })
        #expect(try await Self.waitFor { try await fixture.status(messageID).json["state"] == "done" })
        #expect(Set(fixture.provider.pushes.map(\.token)).count == Self.audience, "each installation once")

        // A message scheduled for later wakes nothing: it is due at a poll after its time.
        let sendAt = fixture.harness.now / 1000 + 3600
        let later = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .integer(sendAt)]))
        #expect(later.json["state"] == "scheduled")
        try await Task.sleep(for: .milliseconds(300))
        #expect(fixture.provider.pushes.count == Self.audience)
        await fanout.stop()
    }
}
