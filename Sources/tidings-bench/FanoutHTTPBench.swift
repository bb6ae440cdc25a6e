import Foundation
import TidingsServer

/// Fan-out measured from the outside (issue #39): a release `tidingsd` as its own process on a SQLite store in
/// a temporary directory, its APNs endpoint the h2o sink of ``APNsBench`` (TLS, HTTP/2), N installations
/// written into the store before it starts (``SeededApp``, not timed), one message to every installation
/// posted over HTTP, and the time from the `POST /v1/messages` to the last push the sink accepted, counted
/// from the sink's access log. Beside it, in the same run and to the same sink, the raw ``APNsClient`` sends
/// the same N pushes (one connection, the fan-out's window; and again with up to tidingsd's default number of
/// connections); they alternate for three rounds and the
/// medians are compared. Also reports tidingsd's peak resident memory (`VmHWM`) and CPU seconds per run, the raw
/// client's CPU seconds, and the sink's for each side, so CPU per push can be compared where the cores are shared.
///
/// - `TIDINGS_BENCH_FANOUT_HTTP_INSTALLATIONS`: N (default 50,000; 1,000,000 for the issue's second goal).
/// - `TIDINGS_BENCH_FANOUT_HTTP_ROUNDS`: rounds (default 3).
/// - `TIDINGS_BENCH_FANOUT_HTTP_ARGS`: more tidingsd flags, separated by spaces (e.g. `--apns-connections 1`).
/// - `TIDINGS_BENCH_FANOUT_HTTP_SEEDED`: a directory to keep the seeded store in and reuse in later runs of
///   the same N (seeding is slow: an installation a transaction).
/// - `TIDINGS_BENCH_FANOUT_HTTP_PERF`: a file: the first round's tidingsd is recorded by
///   `perf record --call-graph dwarf` from the POST until the message is done (read with `perf report -i`).
/// - `TIDINGS_BENCH_FANOUT_HTTP_PEER`: another tidingsd binary (an earlier build) run the same way in every
///   round, so a change is measured against its predecessor in one run; it gets no extra flags.
///
/// Every store starts as a copy of the one seeded store, so each run sends to the same rows. A push missing or
/// sent twice (more lines at the sink than installations once the message is done) fails the suite.
enum FanoutHTTPBench {
    static let bundleID = "com.example.fanout-http"

    /// One tidingsd run's figures.
    struct Run {
        var seconds: Double
        var peakKiB: Int
        var cpuSeconds: Double
        /// The sink's CPU seconds over the same span: it shares the cores with tidingsd.
        var sinkCPUSeconds: Double
        var atSink: Int
        /// From the POST to the first push at the sink: the time the message takes to start sending.
        var firstPushSeconds: Double
        /// Deliveries the resolver handed to the worker claimed (`tidings_fanout_deliveries_handed_over_total`).
        var handedOver: Int
        var rate: Double { seconds > 0 ? Double(atSink) / seconds : 0 }
    }

    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let installations = Int(environment["TIDINGS_BENCH_FANOUT_HTTP_INSTALLATIONS"] ?? "") ?? 50_000
        let rounds = max(1, Int(environment["TIDINGS_BENCH_FANOUT_HTTP_ROUNDS"] ?? "") ?? 3)
        let extraArguments = (environment["TIDINGS_BENCH_FANOUT_HTTP_ARGS"] ?? "").split(separator: " ").map(
            String.init)
        let peer = environment["TIDINGS_BENCH_FANOUT_HTTP_PEER"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-fanout-http-\(UUID())")
        // Seeding writes an installation a transaction: minutes for 50,000 on a busy machine, so a store seeded
        // once can be kept and reused.
        let kept = environment["TIDINGS_BENCH_FANOUT_HTTP_SEEDED"].flatMap {
            $0.isEmpty ? nil : URL(fileURLWithPath: $0)
        }
        let seeded = kept ?? directory.appendingPathComponent("seeded")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Started from this thread, not a task's: a process spawned from a dispatch worker inherits its blocked
        // signals, and h2o would never see the SIGTERM that stops it.
        let sink = try H2OSink(directory: directory, logsPushes: true)
        defer { sink.stop() }

        let seedStart = ContinuousClock.now
        let keyFile = seeded.appendingPathComponent("bench-server-key-\(installations)")
        let serverKey: String
        var seeding = "written through the SQLite store in "
        if let key = try? String(contentsOf: keyFile, encoding: .utf8) {
            serverKey = key
            seeding = "reused from \(seeded.path), opened in "
        } else {
            try FileManager.default.createDirectory(at: seeded, withIntermediateDirectories: true)
            serverKey = try SeededApp.create(directory: seeded, bundleID: bundleID, installations: installations)
                .app.serverKey
            if kept != nil { try Data(serverKey.utf8).write(to: keyFile) }
        }
        Measure.line(
            "fanout-http: \(installations) installations \(seeding)"
                + String(format: "%.1f s", (ContinuousClock.now - seedStart).seconds)
                + "; tidingsd (release, own process) → h2o sink (TLS, HTTP/2, 1 thread); "
                + "tidingsd flags: \(extraArguments.isEmpty ? "defaults" : extraArguments.joined(separator: " "))")

        var raw: [Double] = []
        var rawPooled: [Double] = []
        // The raw client as tidingsd configures it by default: more connections while the open ones are full.
        let pooled = {
            var configuration = sink.clientConfiguration
            configuration.maximumConnectionsPerHost = ServerConfiguration.defaultAPNsConnections
            return configuration
        }()
        var sendPath: [Run] = []
        var peerRuns: [Run] = []
        for round in 1...rounds {
            // The raw client runs in this process, which does nothing else meanwhile: its CPU is the client's.
            let rawCPUBefore = (ProcessCPU.seconds(pid: getpid()), sink.cpuSeconds)
            let rawRate = try APNsBench.blocking {
                try await SendPathBench.rawRate(
                    sink.clientConfiguration, pushes: installations,
                    inFlight: FanoutWorker.Configuration().maximumInFlight)
            }
            let rawCPU = (ProcessCPU.seconds(pid: getpid()) - rawCPUBefore.0, sink.cpuSeconds - rawCPUBefore.1)
            raw.append(rawRate)
            let pooledRate = try APNsBench.blocking {
                try await SendPathBench.rawRate(
                    pooled, pushes: installations, inFlight: FanoutWorker.Configuration().maximumInFlight)
            }
            rawPooled.append(pooledRate)
            let run = try measure(
                binary: nil, arguments: extraArguments, installations: installations, serverKey: serverKey,
                seeded: seeded, directory: directory.appendingPathComponent("round-\(round)"), sink: sink,
                perfOutput: round == 1 ? environment["TIDINGS_BENCH_FANOUT_HTTP_PERF"] : nil)
            sendPath.append(run)
            var line = String(
                format:
                    "round %d: raw client %.0f/s (%.1f CPU-s, sink %.1f; up to %d connections: %.0f/s), tidingsd %.0f/s "
                    + "(%.2fx raw; %.2f s, first push %.2f s, peak %.1f MiB, %.1f CPU-s, sink %.1f, %.0f%% handed over)",
                round, rawRate, rawCPU.0, rawCPU.1, ServerConfiguration.defaultAPNsConnections, pooledRate, run.rate,
                run.rate / rawRate, run.seconds, run.firstPushSeconds, Double(run.peakKiB) / 1024, run.cpuSeconds,
                run.sinkCPUSeconds,
                100 * Double(run.handedOver) / Double(installations))
            if let peer {
                let earlier = try measure(
                    binary: peer, arguments: [], installations: installations, serverKey: serverKey, seeded: seeded,
                    directory: directory.appendingPathComponent("round-\(round)-peer"), sink: sink)
                peerRuns.append(earlier)
                line += String(
                    format:
                        ", peer %.0f/s (%.2fx raw; %.2f s, first push %.2f s, peak %.1f MiB, %.1f CPU-s, sink %.1f)",
                    earlier.rate, earlier.rate / rawRate, earlier.seconds, earlier.firstPushSeconds,
                    Double(earlier.peakKiB) / 1024, earlier.cpuSeconds,
                    earlier.sinkCPUSeconds)
            }
            Measure.line(line)
        }
        let rawMedian = Measure.median(raw)
        Measure.report("fanout_http.\(installations).raw_client, 1 connection (median)", rawMedian, "/s")
        Measure.report(
            "fanout_http.\(installations).raw_client, up to \(ServerConfiguration.defaultAPNsConnections) connections (median)",
            Measure.median(rawPooled), "/s")
        for (name, runs) in [("tidingsd", sendPath), ("peer", peerRuns)] where !runs.isEmpty {
            let rate = Measure.median(runs.map(\.rate))
            Measure.report("fanout_http.\(installations).\(name) (median)", rate, "/s")
            Measure.report(
                "fanout_http.\(installations).\(name)_post_to_last_push (median)", Measure.median(runs.map(\.seconds)),
                "s")
            Measure.report("fanout_http.\(installations).\(name) / raw_client", rate / rawMedian, "x")
            Measure.report(
                "fanout_http.\(installations).\(name)_peak_rss (largest)",
                Double(runs.map(\.peakKiB).max() ?? 0) / 1024, "MiB")
            Measure.report(
                "fanout_http.\(installations).\(name)_cpu (median)", Measure.median(runs.map(\.cpuSeconds)), "CPU-s")
        }
    }

    /// Starts `binary` on a copy of the seeded store, sends one message to everyone and waits for every push
    /// at the sink, then for the message to be done (every outcome recorded), and stops it.
    static func measure(
        binary: URL?, arguments: [String], installations: Int, serverKey: String, seeded: URL, directory: URL,
        sink: H2OSink, perfOutput: String? = nil
    ) throws -> Run {
        try FileManager.default.copyItem(at: seeded, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: directory, apnsEndpoint: URL(string: sink.endpoint)!,
            extraArguments: ["--apns-ca-file", sink.certificate] + arguments, executable: binary)
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        guard let accessLog = sink.accessLog else { preconditionFailure("the sink logs pushes") }
        // Started from this thread for the same reason as h2o: it must see the SIGINT that makes it write.
        let perf = try perfOutput.map { output in
            let perf = Process()
            perf.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            perf.arguments = [
                "perf", "record", "--call-graph", "dwarf,16384", "-F", "499", "-o", output, "-p",
                "\(tidingsd.process.processIdentifier)",
            ]
            perf.standardOutput = FileHandle.nullDevice
            perf.standardError = FileHandle.nullDevice
            try perf.run()
            Thread.sleep(forTimeInterval: 1)
            return perf
        }
        defer {
            if let perf {
                perf.interrupt()
                perf.waitUntilExit()
            }
        }
        return try APNsBench.blocking {
            let pid = tidingsd.process.processIdentifier
            let api = ServerKeyClient(baseURL: tidingsd.url, serverKey: serverKey)
            let received = try AccessLogFollower(path: accessLog)
            let cpuBefore = (ProcessCPU.seconds(pid: pid), sink.cpuSeconds)
            let start = ContinuousClock.now
            let (messageID, _) = try await api.sendToEveryone(title: "fanout-http")
            // The sink's log says when the last push arrived; polling the message would cost tidingsd work.
            var lastGrowth = (lines: 0, at: ContinuousClock.now)
            var firstPush: ContinuousClock.Instant?
            while try received.count() < installations {
                let now = ContinuousClock.now
                if firstPush == nil && received.lines > 0 { firstPush = now }
                if received.lines > lastGrowth.lines { lastGrowth = (received.lines, now) }
                if now - lastGrowth.at > .seconds(30) {
                    throw APNsBench.Failure(
                        description: "the sink stood still at \(received.lines) of \(installations) pushes for 30 s")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            let elapsed = ContinuousClock.now - start
            // Every outcome recorded, then the sink given a moment for a push sent twice to show.
            while try await api.call("GET", "/v1/messages/\(messageID)").1["state"]?.stringValue != "done" {
                if ContinuousClock.now - start > .seconds(3600) {
                    throw APNsBench.Failure(description: "the message was not done within an hour")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let cpu = ProcessCPU.seconds(pid: pid) - cpuBefore.0
            let sinkCPU = sink.cpuSeconds - cpuBefore.1
            let handedOver = try await api.metric("tidings_fanout_deliveries_handed_over_total")
            try await Task.sleep(for: .milliseconds(300))
            let atSink = try received.count()
            guard atSink == installations else {
                throw APNsBench.Failure(
                    description: "the sink received \(atSink) pushes for \(installations) installations")
            }
            return Run(
                seconds: elapsed.seconds, peakKiB: Measure.processMemoryKiB(pid: pid, field: "VmHWM"), cpuSeconds: cpu,
                sinkCPUSeconds: sinkCPU, atSink: atSink,
                firstPushSeconds: ((firstPush ?? start) - start).seconds, handedOver: Int(handedOver))
        }
    }
}
