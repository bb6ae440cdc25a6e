import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsAPNsEmulator
@testable import TidingsHTTP
@testable import TidingsMetrics
@testable import TidingsPush
@testable import TidingsServer

/// A provider token that APNs (the emulator) sees expire in the middle of a fan-out.
@Suite("APNs: provider token expiring mid-run", .serialized)
struct ProviderTokenExpiryTests {
    /// Counts the distinct authorization headers a provider token hands out.
    final class RecordingAuthorization: APNsAuthorization {
        let wrapped: APNsProviderToken
        private let headers = LockedBox<[String]>([])

        init(_ wrapped: APNsProviderToken) { self.wrapped = wrapped }

        var distinctHeaders: Int { headers.withLock { Set($0).count } }

        func authorizationHeader(now: Date) throws -> String {
            let header = try wrapped.authorizationHeader(now: now)
            headers.withLock { $0.append(header) }
            return header
        }

        func invalidate(_ header: String) { wrapped.invalidate(header) }
    }

    @Test func anExpiredTokenIsRenewedOnceAndEveryNotificationArrivesOnce() async throws {
        // Apple's clock runs 7 minutes ahead of ours: a token we still reuse at 54 minutes (refresh at 55) is
        // 61 minutes old for APNs, past its one-hour limit.
        let appleClock = ManualClock(now: APIHarness.startDate)
        let harness = try SendingHarness(withFCM: false, emulatorClock: appleClock)
        let token = try APNsProviderToken(
            key: harness.apnsKey,
            configuration: .init(
                keyID: SendingHarness.keyID, teamID: SendingHarness.teamID, refreshAge: .seconds(55 * 60)),
            clock: harness.clock)
        let authorization = RecordingAuthorization(token)
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = "http://127.0.0.1:\(harness.emulatorServer.port)"
        let metrics = MetricsRegistry()
        let client = try APNsClient(
            configuration: configuration, authorization: authorization, metrics: metrics, clock: harness.clock)

        let count = 120
        let tokens = (0..<count).map { String(format: "%064x", $0 + 1) }
        for (index, deviceToken) in tokens.enumerated() {
            try await harness.register("phone-\(index)", ["apns_token": .string(deviceToken)])
        }
        let messageID = try await harness.sendAlertToAll()
        let worker = harness.worker(provider: client, chunkSize: 40, inFlight: 8)

        #expect(try await worker.runOnce() == 40)
        harness.clock.advance(by: .seconds(54 * 60))
        appleClock.advance(by: .seconds(61 * 60))
        #expect(try await worker.drain() == count - 40)

        for deviceToken in tokens {
            #expect(await harness.emulator.collect(token: deviceToken).count == 1, "\(deviceToken) exactly once")
        }
        let status = try await harness.status(messageID)
        #expect(status.count("sent") == Int64(count))
        #expect(status.count("failed") == 0)
        let expired = harness.emulator.counts["403 ExpiredProviderToken"] ?? 0
        // The pushes in flight when the token expired each got one 403; they share one new token.
        #expect((1...8).contains(expired))
        #expect(authorization.distinctHeaders == 2)
        let renewals = metrics.counter(name: APNsStatistics.tokenRenewalsMetric, help: "").value
        #expect(renewals == Double(expired))
        #expect(client.statistics.count(outcome: "sent", reason: "none") == Double(count))
        client.shutdown()
        await harness.close()
    }

    @Test func aTokenRejectedTwiceFailsWithoutALoop() async throws {
        // Apple's clock is two hours ahead: even a fresh token is too old for it, so the renewal is refused too.
        let appleClock = ManualClock(now: APIHarness.startDate.addingTimeInterval(2 * 3600))
        let harness = try SendingHarness(withFCM: false, emulatorClock: appleClock)
        try await harness.register("phone", ["apns_token": .string(String(repeating: "ab", count: 32))])
        let messageID = try await harness.sendAlertToAll()
        try await harness.worker().drain()
        let status = try await harness.status(messageID)
        #expect(status.json["counts"]?["failed_by_reason"]?["ExpiredProviderToken"] == 1)
        #expect(harness.emulator.counts["403 ExpiredProviderToken"] == 2, "one renewal, then final")
        await harness.close()
    }
}
