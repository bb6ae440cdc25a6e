import Foundation
import TidingsModel

/// A journey's step latency from the outside (issue #37): a release `tidingsd` as its own process on a SQLite
/// store, its APNs endpoint an h2o sink (TLS, HTTP/2) that logs each push's device token and the microsecond it
/// arrived. N installations are written into the store before it starts (``SeededApp``, not timed); a journey
/// triggered by `add_to_cart`, entry `every_time`, whose first step sends, is created and started over HTTP.
///
/// Both phases post batches on a fixed schedule (open loop: a batch is posted when due, whether the previous
/// ones were answered or not) at the target rate, each event for its own installation and `occurred_at` its
/// batch's due time. First the baseline: events of a type no journey listens for, the plain ingest (its rate,
/// its POSTs' latency and tidingsd's CPU per event). Then the triggering events; per event, the latency runs
/// from its batch's answer (the event is ingested, its signal queued in the same transaction) to its push
/// arriving at the sink. Both post with the server key, whose default limit (200 requests a second) caps
/// batches of 100 at 20,000 events a second: a saturating baseline would measure the limiter, not the ingest.
///
/// - `TIDINGS_BENCH_JOURNEYS_RATE`: triggering events a second (default 2,000).
/// - `TIDINGS_BENCH_JOURNEYS_SECONDS`: how long they are posted (default 20); N is rate × seconds.
/// - `TIDINGS_BENCH_JOURNEYS_BATCH`: events a request (default 100), for both phases.
/// - `TIDINGS_BENCH_JOURNEYS_CONNECTIONS`: client sessions the batches are spread over (default 4).
/// - `TIDINGS_BENCH_JOURNEYS_BASELINE_SECONDS`: how long the baseline posts (default 10).
/// - `TIDINGS_BENCH_JOURNEYS_ARGS`: more tidingsd flags, separated by spaces.
enum JourneyBench {
    static let bundleID = "com.example.journeys"
    static let trigger = "add_to_cart"
    /// What the baseline posts: a type no journey listens for, so no signal is queued.
    static let untriggering = "page_view"

    struct Settings {
        var rate: Int
        var seconds: Int
        var batch: Int
        var connections: Int
        var baselineSeconds: Int
        var installations: Int { rate * seconds }
        var batches: Int { installations / batch }
        /// Seconds between the triggering batches' due times.
        var interval: Double { Double(batch) / Double(rate) }
    }

    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ name: String, _ fallback: Int) -> Int {
            max(1, Int(environment["TIDINGS_BENCH_JOURNEYS_\(name)"] ?? "") ?? fallback)
        }
        let settings = Settings(
            rate: setting("RATE", 2_000), seconds: setting("SECONDS", 20), batch: setting("BATCH", 100),
            connections: setting("CONNECTIONS", 4), baselineSeconds: setting("BASELINE_SECONDS", 10))
        let extraArguments = (environment["TIDINGS_BENCH_JOURNEYS_ARGS"] ?? "").split(separator: " ").map(
            String.init)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-journeys-\(UUID())")
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Started from this thread, not a task's, so h2o sees the SIGTERM that stops it (as in FanoutHTTPBench).
        let sink = try H2OSink(directory: directory, logsPushes: true, logFormat: H2OSink.arrivalLogFormat)
        defer { sink.stop() }
        guard let accessLog = sink.accessLog else { preconditionFailure("the sink logs pushes") }

        let seedStart = ContinuousClock.now
        let serverKey = try SeededApp.create(
            directory: dataDirectory, bundleID: bundleID, installations: settings.installations
        ).app.serverKey
        Measure.line(
            "journeys: \(settings.installations) installations seeded in "
                + String(format: "%.1f s", (ContinuousClock.now - seedStart).seconds)
                + "; tidingsd (release, own process, SQLite) → h2o sink (TLS, HTTP/2, 1 thread); "
                + "\(settings.batch) events a batch over \(settings.connections) connections; tidingsd flags: "
                + (extraArguments.isEmpty ? "defaults" : extraArguments.joined(separator: " ")))
        Measure.line("journeys: load average before: \(loadAverage())")

        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: dataDirectory, apnsEndpoint: URL(string: sink.endpoint)!,
            extraArguments: ["--apns-ca-file", sink.certificate] + extraArguments)
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        let pid = tidingsd.process.processIdentifier
        let clients = (0..<settings.connections).map { _ in
            ServerKeyClient(baseURL: tidingsd.url, serverKey: serverKey)
        }
        try APNsBench.blocking {
            try await startJourney(clients[0])
            let cpuBefore = ProcessCPU.seconds(pid: pid)
            let baseline = try await postPaced(
                type: untriggering, batches: settings.rate * settings.baselineSeconds / settings.batch, clients,
                settings)
            let baselineCPU = ProcessCPU.seconds(pid: pid) - cpuBefore
            reportPosting("journeys.plain_ingest (\(untriggering))", baseline, settings, cpu: baselineCPU)

            let received = try AccessLogFollower(path: accessLog)
            let cpuStart = ProcessCPU.seconds(pid: pid)
            let triggers = try await postPaced(type: trigger, batches: settings.batches, clients, settings)
            // The pushes still on their way: until all have arrived or none has for 20 s.
            var lastGrowth = (lines: try received.count(), at: ContinuousClock.now)
            while try received.count() < settings.installations {
                if received.lines > lastGrowth.lines { lastGrowth = (received.lines, ContinuousClock.now) }
                if ContinuousClock.now - lastGrowth.at > .seconds(20) { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let cpu = ProcessCPU.seconds(pid: pid) - cpuStart
            try report(triggers, settings, accessLog: accessLog, cpu: cpu)
        }
        Measure.line("journeys: load average after: \(loadAverage())")
    }

    // MARK: Phases

    static func startJourney(_ client: ServerKeyClient) async throws {
        let definition: JSONValue = [
            "name": "Bench: cart nudge",
            "trigger": ["event": .string(trigger)],
            "entry": ["rule": "every_time"],
            "steps": [
                [
                    "id": "nudge", "type": "send",
                    "message": ["content": ["title": "Still thinking about it?", "body": "Your cart is waiting."]],
                ]
            ],
        ]
        let (created, answer) = try await client.call("POST", "/v1/journeys", definition)
        guard created == 201, let journeyID = answer["journey_id"]?.stringValue else {
            throw APNsBench.Failure(description: "POST /v1/journeys answered \(created): \(answer)")
        }
        let (started, startAnswer) = try await client.call("POST", "/v1/journeys/\(journeyID)/start")
        guard started == 200 else {
            throw APNsBench.Failure(description: "starting the journey answered \(started): \(startAnswer)")
        }
    }

    /// What a paced phase measured: per batch, when it was due and when it was answered (Unix seconds).
    struct PacedPhase {
        var due: [Double]
        var answered: [Double]
    }

    /// `batches` batches of `type` at the settings' rate, each posted when due (its own task), batch k for
    /// installations `k * batch ..< (k + 1) * batch`.
    static func postPaced(type: String, batches: Int, _ clients: [ServerKeyClient], _ settings: Settings)
        async throws -> PacedPhase
    {
        // Built before the clock starts so building them takes nothing from the schedule.
        let start = Date().timeIntervalSince1970 + 0.5
        let due = (0..<batches).map { start + Double($0) * settings.interval }
        let bodies = due.enumerated().map { batchIndex, dueAt in
            batchBody(
                type: type,
                installations: Array(batchIndex * settings.batch..<(batchIndex + 1) * settings.batch),
                occurredAt: Int64(dueAt * 1000))
        }
        let answered = LockedBox([Double](repeating: .nan, count: batches))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (batchIndex, body) in bodies.enumerated() {
                let wait = due[batchIndex] - Date().timeIntervalSince1970
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                let client = clients[batchIndex % clients.count]
                group.addTask {
                    try await post(body, client: client, expecting: settings.batch)
                    let now = Date().timeIntervalSince1970
                    answered.withLock { $0[batchIndex] = now }
                }
            }
            try await group.waitForAll()
        }
        return PacedPhase(due: due, answered: answered.withLock { $0 })
    }

    static func batchBody(type: String, installations: [Int], occurredAt: Int64) -> [UInt8] {
        let events = installations.map { index in
            TidingsEvent(
                type: EventType(type), occurredAt: occurredAt, installationID: SeededApp.installationID(index),
                sdkVersion: "1.0.0", appVersion: "4.12.0", osVersion: "18.1", deviceModel: "iPhone16,2",
                dialect: "native", source: .app, appState: .foreground
            ).json
        }
        return try! JSONValue.object(["events": .array(events)]).serialized()
    }

    /// Posts a batch and checks that every event of it was accepted.
    static func post(_ body: [UInt8], client: ServerKeyClient, expecting count: Int) async throws {
        let (status, reply) = try await client.post("/v1/events", body: body)
        let text = String(decoding: reply, as: UTF8.self)
        let accepted = text.components(separatedBy: #""status":"accepted""#).count - 1
        guard status == 200, accepted == count else {
            throw APNsBench.Failure(
                description: "POST /v1/events answered \(status), \(accepted) of \(count) accepted: \(text.prefix(300))"
            )
        }
    }

    // MARK: Figures

    static func report(_ phase: PacedPhase, _ settings: Settings, accessLog: String, cpu: Double) throws {
        let events = settings.installations
        var arrival = [Double](repeating: .nan, count: events)
        var repeated = 0
        let log = try String(contentsOfFile: accessLog, encoding: .utf8)
        for line in log.split(separator: "\n") where line.hasPrefix("/3/device/") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let index = Int(fields[0].dropFirst("/3/device/".count), radix: 16),
                let microseconds = Double(fields[1]), index < events
            else { continue }
            if arrival[index].isNaN { arrival[index] = microseconds / 1e6 } else { repeated += 1 }
        }
        var latencies: [Double] = []
        var bySecond: [Int: [Double]] = [:]
        let first = phase.due[0]
        for (index, arrived) in arrival.enumerated() where !arrived.isNaN {
            let batchIndex = index / settings.batch
            let latency = arrived - phase.answered[batchIndex]
            latencies.append(latency)
            bySecond[Int(phase.due[batchIndex] - first), default: []].append(latency)
        }
        let lastAnswer = phase.answered.max() ?? first
        reportPosting("journeys.triggers (\(trigger))", phase, settings, cpu: cpu)
        Measure.report("journeys.pushes_arrived (of \(events) events)", Double(latencies.count), "")
        Measure.report("journeys.pushes_repeated", Double(repeated), "")
        let arrivals = arrival.filter { !$0.isNaN }
        if let firstPush = arrivals.min(), let lastPush = arrivals.max(), lastPush > firstPush {
            Measure.report(
                "journeys.push_rate (first to last push)", Double(arrivals.count) / (lastPush - firstPush), "/s")
            Measure.report("journeys.last_push_after_last_answer", (lastPush - lastAnswer) * 1000, "ms")
        }
        reportMilliseconds("journeys.ingest_to_push", latencies, percentiles: [0.5, 0.95, 0.99])
        // Over the run, to tell a steady delay from a backlog that grows.
        for second in bySecond.keys.sorted() {
            let sorted = bySecond[second]!.sorted()
            Measure.line(
                String(
                    format: "  second %2d: %5d pushes, ingest→push p50 %6.0f ms, p99 %6.0f ms, max %6.0f ms", second,
                    sorted.count, Measure.percentile(sorted, 0.5) * 1000, Measure.percentile(sorted, 0.99) * 1000,
                    sorted.last! * 1000))
        }
    }

    /// A paced phase's achieved rate (from the first batch's due time to the last answer), its POSTs' latency
    /// from due to answered, and tidingsd's CPU time per event over the phase.
    static func reportPosting(_ name: String, _ phase: PacedPhase, _ settings: Settings, cpu: Double) {
        let events = phase.due.count * settings.batch
        let rate = Double(events) / ((phase.answered.max() ?? .nan) - phase.due[0])
        Measure.report("\(name) rate (target \(settings.rate))", rate, "events/s")
        reportMilliseconds("\(name) post", zip(phase.answered, phase.due).map { $0 - $1 })
        Measure.report("\(name) tidingsd CPU per event", cpu / Double(events) * 1e6, "CPU-µs")
    }

    static func reportMilliseconds(_ name: String, _ seconds: [Double], percentiles: [Double] = [0.5, 0.99]) {
        let sorted = seconds.sorted()
        for fraction in percentiles {
            Measure.report("\(name) p\(Int(fraction * 100))", Measure.percentile(sorted, fraction) * 1000, "ms")
        }
        Measure.report("\(name) max", (sorted.last ?? .nan) * 1000, "ms")
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
            .joined(separator: " ")
    }
}
