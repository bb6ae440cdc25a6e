import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// How fast a message is accepted (its first chunk resolved in the answer), its audience resolved (the rest,
/// as the background resolvers do) and fanned out to a provider that answers at once, over a real SQLite
/// store, in process.
///
/// Off by default: `TIDINGS_BENCH=1 swift test --filter FanoutBenchmarks` (add `-c release` for real
/// figures). It prints figures and asserts only that the work was done, never how fast.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TIDINGS_BENCH"] != nil), .serialized)
struct FanoutBenchmarks {
    @Test(arguments: [20_000])
    func acceptAndFanOut(installations: Int) async throws {
        let provider = RecordingPushProvider()
        let harness = try APIHarness(provider: provider)
        var update = InstallationUpdate()
        update.consentNotifications = .set(true)
        update.timezone = .set("Asia/Tokyo")
        for index in 0..<installations {
            update.apnsToken = .set(String(format: "%064x", index))
            _ = try harness.store.upsertInstallation(
                appID: "app_main", installationID: "inst-\(index)", update: update, now: harness.now)
        }
        var started = Date()
        let reply = try await harness.call(
            "POST", "/v1/messages", key: harness.serverKey,
            json: ["target": ["all": true], "content": ["title": "Hello", "body": "World"]])
        let accept = Date().timeIntervalSince(started)
        #expect(reply.status == 202)

        started = Date()
        try await CampaignResolver(store: harness.store, clock: harness.clock).drain()
        let resolution = Date().timeIntervalSince(started)
        // The answer counts the first chunk; the resolver writes the rest.
        #expect(
            try harness.store.messageCounts(messageID: try #require(reply.json["message_id"]?.stringValue)).queued
                == installations)

        let worker = FanoutWorker(store: harness.store, provider: provider, clock: harness.clock)
        started = Date()
        let sent = try await worker.drain()
        let fanout = Date().timeIntervalSince(started)
        #expect(sent == installations)
        #expect(provider.pushes.count == installations)
        print(
            "POST /v1/messages to \(installations) installations: \(String(format: "%.2f", accept)) s; "
                + "resolution: \(String(format: "%.2f", resolution)) s; fan-out: \(Int(Double(installations) / fanout)) pushes/s "
                + "(\(String(format: "%.2f", fanout)) s, max \(provider.maximumInFlight) in flight)")
    }
}
