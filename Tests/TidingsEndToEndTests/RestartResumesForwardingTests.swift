import Foundation
import Testing
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTestSupport

@Suite struct RestartResumesForwardingTests {
    static let eventCount = 2000
    static let batchSize = 50

    /// tidingsd is SIGKILLed while it forwards to a slow webhook and started again on the same store: every
    /// event arrives at least once, the only duplicates are from the page in flight at the kill, and each
    /// installation's events arrive in the order they were stored.
    @Test func aKilledTidingsdResumesForwardingFromItsCursor() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-fwd-kill-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)

        let secret = "whsec_kill_test_secret_0123456789"
        let received = LockedBox<[String]>([])
        let badSignatures = LockedBox(0)
        let receiver = try LoopbackServer(routes: [
            HTTPRoute("POST", "/hook") { request in
                do {
                    try WebhookSignature.verify(
                        header: request.headers["tidings-signature"] ?? "", secret: secret, body: Array(request.body),
                        now: Int64(Date().timeIntervalSince1970))
                } catch {
                    badSignatures.withLock { $0 += 1 }
                    return HTTPResponse(status: 401)
                }
                let events = try JSONText.parse(request.body).objectValue?["events"]?.arrayValue ?? []
                received.withLock { $0 += events.compactMap { $0.objectValue?["event_id"]?.stringValue } }
                // A slow receiver, so the kill lands mid-stream.
                try await Task.sleep(for: .milliseconds(15))
                return HTTPResponse(status: 204)
            }
        ])

        // Opened as tidingsd opens it, with the secrets key it generates: the forwarder's secret is encrypted.
        let store = try ServerConfiguration(dataDirectory: dataDirectory.path).openStore()
        try store.createApp(AppRecord(id: "app_kill", name: "kill", bundleID: "com.example.kill", createdAt: 0))
        let events = (0..<Self.eventCount).map { index in
            TidingsEvent(
                type: index % 3 == 0 ? .delivery : .open, occurredAt: 1_800_000_000_000 + Int64(index),
                installationID: "inst-\(index % 7)", campaignID: "spring")
        }
        for start in stride(from: 0, to: events.count, by: 100) {
            _ = try store.insertEvents(
                appID: "app_kill", events: Array(events[start..<start + 100]),
                receivedAt: Date().millisecondsSince1970 - 60_000)
        }
        try store.createForwarder(
            ForwarderRecord(
                id: "fwd_kill", appID: "app_kill", kind: .webhook,
                settings: ["url": .string("http://127.0.0.1:\(receiver.port)/hook"), "secret": .string(secret)],
                createdAt: 0))

        let arguments = [
            "--data-dir", dataDirectory.path, "--log-level", "error", "--listen", "127.0.0.1:0",
            "--forwarding-batch-size", String(Self.batchSize),
        ]
        var server = try TidingsdProcess(arguments: arguments)
        defer { server.kill() }
        while received.withLock({ $0.count }) < 10 * Self.batchSize { try await Task.sleep(for: .milliseconds(5)) }
        server.kill()
        let beforeKill = received.withLock { $0.count }
        #expect(beforeKill < Self.eventCount, "the kill must land mid-stream")
        let cursorAtKill = try #require(try store.forwarder(appID: "app_kill", id: "fwd_kill")).cursor

        server = try TidingsdProcess(arguments: arguments)
        let deadline = Date().addingTimeInterval(60)
        while Set(received.withLock { $0 }).count < Self.eventCount, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // Let a stray extra batch show itself before counting.
        try await Task.sleep(for: .milliseconds(300))
        server.kill()

        let ids = received.withLock { $0 }
        #expect(badSignatures.withLock { $0 } == 0)
        #expect(Set(ids) == Set(events.map(\.eventID.lowercasedString)), "every event arrives")
        // A page's batches go side by side, so the page in flight at the kill may be sent again whole.
        let pageSize = Self.batchSize * ForwardingWorker.Configuration().batchesInFlight
        #expect(ids.count - Set(ids).count <= pageSize, "duplicates only from the page in flight")
        #expect(cursorAtKill > 0)
        // Order per installation, by each event's first arrival.
        var seen = Set<String>()
        let firstArrivals = ids.filter { seen.insert($0).inserted }
        let position = Dictionary(uniqueKeysWithValues: firstArrivals.enumerated().map { ($1, $0) })
        for installation in 0..<7 {
            let mine = events.filter { $0.installationID == "inst-\(installation)" }.map(\.eventID.lowercasedString)
            let arrived = mine.compactMap { position[$0] }
            #expect(arrived == arrived.sorted(), "inst-\(installation)'s events arrive in order")
        }
        let forwarder = try #require(try store.forwarder(appID: "app_kill", id: "fwd_kill"))
        #expect(forwarder.cursor == (try store.latestEventSequence(appID: "app_kill")))
    }
}
