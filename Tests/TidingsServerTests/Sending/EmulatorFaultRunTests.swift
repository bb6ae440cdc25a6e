import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsPush
@testable import TidingsServer

/// Faults through the whole path: messages API → fan-out → routing provider → per-app APNs client (signed
/// with the app's key) → the APNs emulator over loopback, which answers scripted tokens with 410, 400, 429
/// and 500. The store's outcomes and the `/metrics` counters are what is checked.
@Suite("APNs emulator: fault run", .serialized)
struct EmulatorFaultRunTests {
    static func token(_ name: String) -> String {
        String(SHA256Digest.hex(SHA256Digest.hash(name)).prefix(64))
    }

    @Test func faultsEndInTheStoreAsAppleDocumentsThem() async throws {
        let appleClock = ManualClock(now: APIHarness.startDate)
        let harness = try SendingHarness(withFCM: false, emulatorClock: appleClock)
        let names = ["ok", "gone", "reregistered", "mismatch", "busy", "flaky"]
        for name in names { try await harness.register(name, ["apns_token": .string(Self.token(name))]) }
        // APNs will say the tokens stopped working one second after they were registered ("gone" goes), and
        // "reregistered" presents its token again one second after that: it is kept.
        appleClock.advance(by: .seconds(1))
        harness.clock.advance(by: .seconds(2))
        try await harness.register("reregistered", ["apns_token": .string(Self.token("reregistered"))])

        let emulator = harness.emulator
        emulator.script(token: Self.token("gone"), status: 410, reason: "Unregistered")
        emulator.script(token: Self.token("reregistered"), status: 410, reason: "Unregistered")
        emulator.script(token: Self.token("mismatch"), status: 400, reason: "BadDeviceToken")
        emulator.script(token: Self.token("busy"), status: 429, reason: "TooManyRequests", times: 1)
        emulator.script(token: Self.token("flaky"), status: 500, reason: "InternalServerError", times: 2)

        let messageID = try await harness.sendAlertToAll()
        let worker = harness.worker(initialBackoff: .seconds(1), random: 1)
        #expect(try await worker.drain() == names.count)
        harness.clock.advance(by: .seconds(1))
        #expect(try await worker.drain() == 2, "busy and flaky, after 1 s")
        harness.clock.advance(by: .seconds(2))
        #expect(try await worker.drain() == 1, "flaky again, after 2 s")

        for name in ["ok", "busy", "flaky"] {
            #expect(await emulator.collect(token: Self.token(name)).count == 1, "\(name) delivered once")
        }
        for name in ["gone", "reregistered", "mismatch"] {
            #expect(await emulator.collect(token: Self.token(name)).isEmpty)
        }
        #expect(emulator.counts["429 TooManyRequests"] == 1)
        #expect(emulator.counts["500 InternalServerError"] == 2)

        #expect(try harness.installation("gone")?.apnsToken == nil, "410 deactivates")
        #expect(try harness.installation("reregistered")?.apnsToken == Self.token("reregistered"))
        #expect(try harness.installation("mismatch")?.apnsToken == Self.token("mismatch"), "400 deletes nothing")
        let mismatch = try harness.store.tokenMismatch(appID: harness.api.appID, installationID: "mismatch")
        #expect(mismatch?.token == Self.token("mismatch"))
        #expect(try harness.store.tokenMismatch(appID: harness.api.appID, installationID: "ok") == nil)

        let status = try await harness.status(messageID)
        #expect(status.json["state"] == "done")
        #expect(status.count("sent") == 3)
        #expect(status.count("failed") == 3)
        #expect(status.json["counts"]?["failed_by_reason"]?["Unregistered"] == 2)
        #expect(status.json["counts"]?["failed_by_reason"]?["BadDeviceToken"] == 1)

        var router = harness.api.api.router
        router.addOperationsRoutes(metrics: harness.metrics)
        let exposition = String(
            decoding: try await router.handler(HTTPRequest(method: "GET", path: "/metrics")).body, as: UTF8.self)
        func value(_ name: String, _ labels: [String]) -> String? {
            exposition.split(separator: "\n").first { line in
                line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) }
            }?.split(separator: " ").last.map(String.init)
        }
        let outcomes = APNsStatistics.outcomesMetric
        #expect(value(outcomes, [#"outcome="sent""#, #"reason="none""#]) == "3")
        #expect(value(outcomes, [#"outcome="token_invalid""#, #"reason="Unregistered""#]) == "2")
        #expect(value(outcomes, [#"outcome="token_mismatch""#, #"reason="BadDeviceToken""#]) == "1")
        #expect(value(outcomes, [#"outcome="retry""#, #"reason="TooManyRequests""#]) == "1")
        #expect(value(outcomes, [#"outcome="retry""#, #"reason="InternalServerError""#]) == "2")
        #expect(exposition.contains("tidings_tokens_deactivated_total 1"))
        #expect(exposition.contains("tidings_pushes_retried_total 3"))
        await harness.close()
    }
}
