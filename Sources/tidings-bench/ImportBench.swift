import Foundation
import Tidings
import TidingsModel
import TidingsStore

/// Bulk import through a release `tidingsd` (its own process, SQLite on disk): `tidings import` (its own
/// process, release) sends a native NDJSON file of `TIDINGS_BENCH_IMPORT_ROWS` rows (default 1,000,000) over
/// HTTP; reported are the rows per second end to end, tidingsd's peak memory (the file is never held), and a
/// re-run of the same file under another import id (every row unchanged). The baseline, in the same run, is
/// the plain upsert route: `PUT /v1/installations/{id}` with the server key, 16 requests in flight (the app's
/// rate limit raised out of the way).
enum ImportBench {
    static let bundleID = "com.example.import-bench"
    static let baselineRequests = 20_000

    static func run() throws {
        let rows = Int(ProcessInfo.processInfo.environment["TIDINGS_BENCH_IMPORT_ROWS"] ?? "") ?? 1_000_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-import-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seeded = try SeededApp.create(directory: directory, bundleID: bundleID, installations: 0)
        let serverKey = seeded.app.serverKey
        // The key's default rate (200 requests a second) would measure the limiter, not the upsert route.
        if var app = try seeded.store.app(id: seeded.app.app.id) {
            app.requestsPerSecond = 1_000_000
            try seeded.store.updateApp(app)
        }
        let file = directory.appendingPathComponent("devices.ndjson")
        try writeFile(file, rows: rows)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        Measure.line(
            "import: \(rows) native NDJSON rows, \(size / 1_048_576) MiB, into tidingsd (release, SQLite on disk)")

        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: directory, apnsEndpoint: URL(string: "https://127.0.0.1:9")!)
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        let first = try importFile(file, url: tidingsd.url, key: serverKey, importID: "bench-1")
        Measure.report("import.\(rows).rows_per_second", Double(rows) / first.seconds, "/s")
        Measure.report("import.\(rows).seconds", first.seconds, "s")
        Measure.report(
            "import.\(rows).tidingsd_peak_rss",
            Double(Measure.processMemoryKiB(pid: tidingsd.process.processIdentifier, field: "VmHWM")) / 1024, "MiB")
        guard first.summary["imported"]?.integerValue == Int64(rows) else {
            throw APNsBench.Failure(description: "the import answered \(first.summary)")
        }
        let again = try importFile(file, url: tidingsd.url, key: serverKey, importID: "bench-2")
        Measure.report("import.\(rows).rerun_unchanged_rows_per_second", Double(rows) / again.seconds, "/s")

        let client = ServerKeyClient(baseURL: tidingsd.url, serverKey: serverKey)
        let baseline = try APNsBench.blocking { try await upsertRate(client) }
        Measure.report("import.baseline_put_installation_\(baselineRequests)", baseline, "/s")
    }

    /// One row per installation: an APNs token, a user, device fields, two attributes; a tag on every tenth.
    static func writeFile(_ file: URL, rows: Int) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var text = ""
        for index in 0..<rows {
            let tags = index % 10 == 0 ? #","tags":["imported"]"# : ""
            text +=
                #"{"installation_id":"imp-\#(index)","platform":"ios","apns_token":"\#(String(format: "%064x", index + 1))","#
                + #""environment":"production","user_id":"user-\#(index)","timezone":"Asia/Tokyo","language":"ja-JP","#
                + #""attributes":{"first_name":"Name\#(index % 977)","orders":\#(index % 13)}\#(tags)}"# + "\n"
            if text.utf8.count > 1 << 20 {
                handle.write(Data(text.utf8))
                text = ""
            }
        }
        handle.write(Data(text.utf8))
    }

    /// Runs `tidings import` (next to this binary) and answers its `--json` summary and the wall time.
    static func importFile(_ file: URL, url: URL, key: String, importID: String) throws -> (
        summary: JSONValue, seconds: Double
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("tidings")
        process.arguments = [
            "import", file.path, "--profile", "native", "--import-id", importID, "--json", "--server",
            url.absoluteString, "--key", key,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        guard process.terminationStatus == 0, let summary = try? JSONValue.parse(data) else {
            throw APNsBench.Failure(
                description:
                    "tidings import exited \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
        }
        return (summary, seconds)
    }

    /// Installations per second through `PUT /v1/installations/{id}`, 16 in flight.
    static func upsertRate(_ client: ServerKeyClient) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: baselineRequests, by: 16) {
                        let body: JSONValue = [
                            "platform": "ios", "apns_token": .string(String(format: "%064x", 5_000_000 + index)),
                            "environment": "production", "user_id": .string("put-\(index)"), "timezone": "Asia/Tokyo",
                            "language": "ja-JP", "attributes": ["first_name": "Name", "orders": 3],
                        ]
                        let (status, answer) = try await client.call("PUT", "/v1/installations/put-\(index)", body)
                        guard status == 201 else {
                            throw APNsBench.Failure(description: "PUT answered \(status) \(answer)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(baselineRequests) / (ContinuousClock.now - start).seconds
    }
}
