import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTestSupport

/// Throughput of the API handler over a real SQLite store, in process (no HTTP).
///
/// Off by default; run in release:
/// `TIDINGS_BENCH=1 swift test -c release --filter APIBenchmarks`
/// It prints figures and asserts only that the work was done, never how fast.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TIDINGS_BENCH"] != nil), .serialized)
struct APIBenchmarks {
    func makeAPI() throws -> (TidingsAPI, appKey: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-bench-\(UUID())")
        let store = try SQLiteStore(directory: directory)
        let admin = AppAdministration(store: store)
        _ = try admin.createApp(name: "bench", bundleID: "com.example.bench")
        let key = try admin.createKey(app: "bench", kind: .app).secret
        return (TidingsAPI(store: store, logger: .disabled()), key, directory)
    }

    func request(_ method: String, _ path: String, key: String, body: Data) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: ["Authorization": "Bearer \(key)"], body: body)
    }

    @Test(arguments: [1, 4])
    func installationUpserts(concurrency: Int) async throws {
        let (api, key, directory) = try makeAPI()
        defer { try? FileManager.default.removeItem(at: directory) }
        let handler = api.router.handler
        let total = 20_000
        // Requests are made before the clock starts: only the handler is measured.
        let requests = (0..<total).map { number in
            let token = String(format: "%064x", number)
            let body = Data(
                """
                {"platform":"ios","apns_token":"\(token)","environment":"production","user_id":"user-\(number)",\
                "consents":{"notifications":true,"ads":false},"permission":"authorized","locale":"ja_JP",\
                "timezone":"Asia/Tokyo","app_version":"1.0.0","sdk_version":"0.1.0","os_version":"18.1"}
                """.utf8)
            return request("PUT", "/v1/installations/\(UUID().uuidString.lowercased())", key: key, body: body)
        }
        let start = ContinuousClock.now
        let cpuStart = BenchmarkMeasurement.processCPUSeconds()
        let created = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    var created = 0
                    for index in stride(from: task, to: total, by: concurrency) {
                        let response = try await handler(requests[index])
                        if response.status == 201 { created += 1 }
                    }
                    return created
                }
            }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = BenchmarkMeasurement.processCPUSeconds() - cpuStart
        #expect(created == total)
        BenchmarkMeasurement.report(
            "installation upserts, \(concurrency) task(s)", count: total, wall: seconds, cpu: cpu)
    }

    @Test(arguments: [1, 2])
    func eventBatchesOf500(concurrency: Int) async throws {
        let (api, key, directory) = try makeAPI()
        defer { try? FileManager.default.removeItem(at: directory) }
        let handler = api.router.handler
        // Each batch comes from one installation, proven by the secret its registration answered (as devices do).
        var secrets: [String] = []
        for index in 0..<100 {
            let answer = try await handler(
                request("PUT", "/v1/installations/inst-\(index)", key: key, body: Data("{}".utf8)))
            secrets.append(try #require(try JSONValue.parse(answer.body)["installation_secret"]?.stringValue))
        }
        let now = Date().millisecondsSince1970
        let batches = 200
        let bodies: [Data] = (0..<batches).map { batch in
            let events = (0..<500).map { index -> String in
                let type = ["delivery", "open", "dismiss", "link_open"][index % 4]
                return """
                    {"event_id":"\(UUID().uuidString.lowercased())","type":"\(type)","occurred_at":\(now),\
                    "installation_id":"inst-\(batch % 100)","platform":"ios","sdk_version":"0.1.0","app_version":"1.0.0",\
                    "message_id":"m-\(batch % 10)","campaign_id":"c-\(batch % 3)","dialect":"native","source":"app",\
                    "app_state":"foreground","value":"https://example.com/x"}
                    """
            }
            return Data("{\"events\":[\(events.joined(separator: ","))]}".utf8)
        }
        let bytes = bodies.reduce(0) { $0 + $1.count }
        let requests = bodies.enumerated().map { batch, body in
            var posted = request("POST", "/v1/events", key: key, body: body)
            posted.headers[TidingsAPI.installationHeader] = "inst-\(batch % 100)"
            posted.headers["X-Tidings-Installation-Secret"] = secrets[batch % 100]
            return posted
        }
        let start = ContinuousClock.now
        let cpuStart = BenchmarkMeasurement.processCPUSeconds()
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    var accepted = 0
                    for batch in stride(from: task, to: batches, by: concurrency) {
                        let response = try await handler(requests[batch])
                        accepted +=
                            String(decoding: response.body, as: UTF8.self).components(separatedBy: "accepted")
                            .count - 1
                    }
                    return accepted
                }
            }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = BenchmarkMeasurement.processCPUSeconds() - cpuStart
        #expect(accepted == batches * 500)
        let stored = try api.store.events(appID: try #require(api.store.apps().first).id, query: .init(limit: 1000))
        #expect(stored.events.count == 1000)
        BenchmarkMeasurement.report(
            "events in batches of 500 (\(bytes / batches) bytes), \(concurrency) task(s)", count: accepted,
            wall: seconds,
            cpu: cpu)
    }

    @Test func storeAloneInsertsEventsInBatchesOf500() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        try store.createApp(AppRecord(id: "app_bench", name: "bench", bundleID: "com.example.bench", createdAt: 0))
        let now = Date().millisecondsSince1970
        let batches = (0..<200).map { batch in
            (0..<500).map { index in
                TidingsEvent(
                    type: [.delivery, .open, .dismiss, .linkOpen][index % 4], occurredAt: now,
                    installationID: "inst-\(index % 100)", sdkVersion: "0.1.0", appVersion: "1.0.0",
                    messageID: "m-\(batch % 10)", campaignID: "c-\(batch % 3)", dialect: "native", source: .app,
                    appState: .foreground, value: "https://example.com/x")
            }
        }
        let start = ContinuousClock.now
        let cpuStart = BenchmarkMeasurement.processCPUSeconds()
        var inserted = 0
        for batch in batches {
            inserted += try store.insertEvents(appID: "app_bench", events: batch, receivedAt: now).filter { $0 }.count
        }
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = BenchmarkMeasurement.processCPUSeconds() - cpuStart
        #expect(inserted == 100_000)
        BenchmarkMeasurement.report("store alone: events in batches of 500", count: inserted, wall: seconds, cpu: cpu)
    }
}
