import Foundation
import Tidings
import TidingsModel
import TidingsStore

/// The console's reads at scale: a release `tidingsd` (its own process, SQLite on disk) holding N
/// installations (`TIDINGS_BENCH_CONSOLE_INSTALLATIONS`, default 1,000,000; two per user, every hundredth
/// user tagged `vip`) and M messages (`TIDINGS_BENCH_CONSOLE_MESSAGES`, default 10,000, five deliveries each),
/// and one device with a timeline of events. The messages are sent first (to the h2o sink), so their counts are
/// those of sent messages and no fan-out runs while reads are timed. Each read the console's pages make is timed over HTTP with the
/// server key, 40 times after 5 warm-ups; p50 and p95 in milliseconds. Goal: device search and the message
/// list under 100 ms.
enum ConsoleScaleBench {
    static let bundleID = "com.example.console-bench"

    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let installations = Int(environment["TIDINGS_BENCH_CONSOLE_INSTALLATIONS"] ?? "") ?? 1_000_000
        let messages = Int(environment["TIDINGS_BENCH_CONSOLE_MESSAGES"] ?? "") ?? 10_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let seedStart = ContinuousClock.now
        let serverKey = try seed(directory: directory, installations: installations, messages: messages)
        Measure.line(
            "console-scale: \(installations) installations, \(messages) messages written in "
                + "\(Int((ContinuousClock.now - seedStart).seconds)) s; tidingsd (release, own process, SQLite on disk)"
        )
        let sink = try H2OSink(directory: directory)
        defer { sink.stop() }
        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: directory, apnsEndpoint: URL(string: sink.endpoint)!,
            extraArguments: ["--apns-ca-file", sink.certificate])
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        try APNsBench.blocking { try await waitUntilSent(url: tidingsd.url, key: serverKey) }
        let middle = installations / 2
        let reads: [(name: String, path: String)] = [
            ("search by installation id", "/v1/devices/search?q=\(SeededApp.installationID(middle))"),
            ("search by user id", "/v1/devices/search?q=user-\(middle / 2)"),
            ("search by tag (vip, 50 shown)", "/v1/devices/search?q=vip"),
            // The seeded tokens count up, so this prefix is shared by 65,536 of them: a worst case.
            ("search by token prefix", "/v1/devices/search?q=\(String(SeededApp.token(middle).prefix(60)))"),
            ("search that finds nothing", "/v1/devices/search?q=nobody-at-all"),
            ("message list, first page", "/v1/stats/messages?limit=25"),
            ("message list, page 200", "/v1/stats/messages?limit=25&cursor=\(try cursor(tidingsd.url, serverKey))"),
            ("device timeline", "/v1/installations/\(SeededApp.installationID(0))/timeline"),
            ("a message with its funnel", "/v1/messages/msg-bench-\(messages / 2)"),
            ("overview", "/v1/stats/overview"),
        ]
        try APNsBench.blocking {
            for read in reads {
                let (p50, p95) = try await time(read.path, url: tidingsd.url, key: serverKey)
                Measure.report("console.\(read.name) p50", p50, "ms")
                Measure.report("console.\(read.name) p95", p95, "ms")
            }
        }
    }

    /// The store: installations with users and tags, messages with deliveries, one device's events.
    static func seed(directory: URL, installations: Int, messages: Int) throws -> String {
        let (app, store) = try SeededApp.create(directory: directory, bundleID: bundleID, installations: installations)
        { index, update in
            update.userID = .set("user-\(index / 2)")
            update.language = .set(index % 3 == 0 ? "ja" : "en")
            update.timezone = .set(index % 2 == 0 ? "Asia/Tokyo" : "Europe/Berlin")
        }
        let appID = app.app.id
        for user in stride(from: 0, to: installations / 2, by: 100) {
            _ = try store.replaceTags(appID: appID, userID: "user-\(user)", tags: ["vip"], limits: TagLimits())
        }
        let now = Date().millisecondsSince1970
        for message in 0..<messages {
            let id = "msg-bench-\(message)"
            let deliveries = (0..<5).map { offset in
                let index = (message * 5 + offset) % installations
                return MessageDelivery(
                    messageID: id, appID: appID, installationID: SeededApp.installationID(index),
                    token: SeededApp.token(index))
            }
            try store.createMessage(
                MessageRecord(
                    id: id, appID: appID, kind: .alert, topic: bundleID,
                    payload: Array(#"{"aps":{"alert":{"title":"Bench \#(message)"}}}"#.utf8), priority: 10,
                    expiresAt: now + 3_600_000, createdAt: now - Int64(messages - message) * 1000),
                deliveries: deliveries)
        }
        let events = (0..<200).map { index in
            TidingsEvent(
                type: index % 2 == 0 ? .delivery : .open, occurredAt: now - Int64(index) * 60_000,
                installationID: SeededApp.installationID(0), messageID: "msg-bench-\(index % messages)")
        }
        _ = try store.insertEvents(appID: appID, events: events, receivedAt: now)
        return app.serverKey
    }

    /// Waits until no message is queued or sending any more.
    static func waitUntilSent(url: URL, key: String) async throws {
        let start = ContinuousClock.now
        func unsent() async throws -> Bool {
            for state in ["queued", "sending"] {
                let page = try await get("/v1/messages?state=\(state)&limit=1", url: url, key: key)
                if page["messages"]?.arrayValue?.isEmpty == false { return true }
            }
            return false
        }
        while try await unsent() {
            if ContinuousClock.now - start > .seconds(600) { throw APNsBench.Failure(description: "messages not sent") }
            try await Task.sleep(for: .seconds(1))
        }
        Measure.line("console-scale: the messages were sent in \(Int((ContinuousClock.now - start).seconds)) s")
    }

    /// The cursor of the message list's 200th page, from walking the pages.
    static func cursor(_ url: URL, _ key: String) throws -> String {
        try APNsBench.blocking {
            var cursor = ""
            for _ in 0..<199 {
                let query = cursor.isEmpty ? "" : "&cursor=\(cursor)"
                let page = try await get("/v1/stats/messages?limit=25\(query)", url: url, key: key)
                guard let next = page["next_cursor"]?.stringValue else { break }
                cursor = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next
            }
            return cursor
        }
    }

    /// Median and 95th percentile of 40 timed requests, after 5 warm-ups; each must answer 200.
    static func time(_ path: String, url: URL, key: String) async throws -> (Double, Double) {
        for _ in 0..<5 { _ = try await get(path, url: url, key: key) }
        var samples: [Double] = []
        for _ in 0..<40 {
            let start = ContinuousClock.now
            _ = try await get(path, url: url, key: key)
            samples.append((ContinuousClock.now - start).seconds * 1000)
        }
        samples.sort()
        return (Measure.percentile(samples, 0.5), Measure.percentile(samples, 0.95))
    }

    static func get(_ path: String, url: URL, key: String) async throws -> JSONValue {
        let request = TransportRequest(
            method: "GET", url: URL(string: url.absoluteString + path)!, headers: ["Authorization": "Bearer \(key)"],
            timeout: .seconds(60))
        let response = try await URLSessionTransport().send(request)
        guard response.status == 200 else {
            throw APNsBench.Failure(
                description:
                    "GET \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONValue.parse(response.body)
    }
}
