import Foundation
import TidingsModel
import TidingsStore

/// Campaign fan-out on each store, in one run: one campaign to the same audience through release `tidingsd`
/// processes to an h2o sink that logs every push, for
///   `sqlite`  one tidingsd on the SQLite store in its data directory,
///   `pg-1`    one tidingsd on PostgreSQL (`TIDINGS_BENCH_POSTGRES_1`, an empty database),
///   `pg-2`    two tidingsd on one PostgreSQL database (`TIDINGS_BENCH_POSTGRES_2`, an empty database),
///   `pg-1-peer` one tidingsd of another build (`TIDINGS_BENCH_FANOUT_PEER`, its path) on PostgreSQL
///             (`TIDINGS_BENCH_POSTGRES_PEER`, an empty database), so that a change is measured against the
///             build before it in the same run,
/// each with the push rate from `POST /v1/messages` to every push at the sink, the CPU seconds tidingsd and
/// PostgreSQL (the postmaster `TIDINGS_BENCH_POSTGRES_PID` and its processes) spent from the send until the
/// store has recorded every push sent, and what the sink received: pushes missing, and pushes sent twice (by
/// device token, and by `apns-id`).
///
/// The audience (`TIDINGS_BENCH_FANOUT_AUDIENCE`, default 30,000) is written once into a SQLite store
/// through the store API (``SeededApp``), and copied to each PostgreSQL database with `tidingsd store copy`
/// before SQLite's run sends. `scripts/bench-postgres campaign` starts the PostgreSQL cluster and runs this.
/// Without the PostgreSQL variables only SQLite runs. `TIDINGS_BENCH_FANOUT_ROUNDS=N` sends N campaigns from
/// every setup, in turn, and prints the ratios of the medians. A push missing or sent twice fails the suite
/// after the figures are printed.
enum CampaignFanoutBench {
    static let bundleID = "com.example.fanout-bench"

    /// A store to send the campaign from and the tidingsd processes sharing it.
    struct Setup {
        let name: String
        /// `--store`'s value; nil for SQLite in the data directory.
        let postgres: String?
        let instances: Int
        /// The tidingsd to run; nil for the one beside this bench.
        var executable: URL? = nil
    }

    /// One setup's figures.
    struct Outcome {
        let setup: Setup
        let audience: Int
        let seconds: Double
        let tidingsdCPU: Double
        let postgresCPU: Double
        let sink: SinkTally
        /// `tidings_pushes_sent_total` of each tidingsd.
        let sentByInstance: [Int]

        var pushesPerSecond: Double { Double(audience) / seconds }
        var missing: Int { max(0, audience - sink.devices) }
    }

    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let audience = Int(environment["TIDINGS_BENCH_FANOUT_AUDIENCE"] ?? "") ?? 30_000
        let postmaster = environment["TIDINGS_BENCH_POSTGRES_PID"].flatMap { Int32($0) }
        var setups = [Setup(name: "sqlite", postgres: nil, instances: 1)]
        for (name, variable, instances) in [
            ("pg-1", "TIDINGS_BENCH_POSTGRES_1", 1), ("pg-2", "TIDINGS_BENCH_POSTGRES_2", 2),
        ] {
            guard let database = environment[variable], !database.isEmpty else { continue }
            guard postmaster != nil else {
                throw APNsBench.Failure(description: "\(variable) needs TIDINGS_BENCH_POSTGRES_PID, the postmaster")
            }
            setups.append(Setup(name: name, postgres: database, instances: instances))
        }
        if let peer = environment["TIDINGS_BENCH_FANOUT_PEER"], !peer.isEmpty {
            guard let database = environment["TIDINGS_BENCH_POSTGRES_PEER"], !database.isEmpty, postmaster != nil
            else {
                throw APNsBench.Failure(
                    description: "TIDINGS_BENCH_FANOUT_PEER needs TIDINGS_BENCH_POSTGRES_PEER and the postmaster")
            }
            setups.append(
                Setup(
                    name: "pg-1-peer", postgres: database, instances: 1, executable: URL(fileURLWithPath: peer)))
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-fanout-\(UUID())")
        let seeded = directory.appendingPathComponent("seeded-store")
        try FileManager.default.createDirectory(at: seeded, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seedStart = ContinuousClock.now
        let serverKey = try SeededApp.create(directory: seeded, bundleID: bundleID, installations: audience)
            .app.serverKey
        Measure.line(
            "campaign-fanout: \(audience) installations written through the SQLite store in "
                + "\(String(format: "%.1f", (ContinuousClock.now - seedStart).seconds)) s")
        for setup in setups {
            guard let database = setup.postgres else { continue }
            let copyStart = ContinuousClock.now
            try copyStore(from: seeded, to: database, executable: setup.executable)
            Measure.line(
                "campaign-fanout: copied to \(setup.name)'s database with `tidingsd store copy` in "
                    + "\(String(format: "%.1f", (ContinuousClock.now - copyStart).seconds)) s")
        }

        // Each round sends one more campaign from every setup, in turn, so the host's drift falls on all of
        // them; each store keeps the rounds before, as a store in use keeps its past campaigns.
        let rounds = max(1, Int(environment["TIDINGS_BENCH_FANOUT_ROUNDS"] ?? "") ?? 1)
        var outcomes: [[Outcome]] = []
        for round in 1...rounds {
            if rounds > 1 { Measure.line("== round \(round) of \(rounds)") }
            var roundOutcomes: [Outcome] = []
            for setup in setups {
                let setupDirectory = directory.appendingPathComponent("round-\(round)").appendingPathComponent(
                    setup.name)
                try FileManager.default.createDirectory(at: setupDirectory, withIntermediateDirectories: true)
                // Started and stopped from this thread, not a task's: a process spawned from a dispatch worker
                // inherits its blocked signals, and h2o would never see the SIGTERM that stops it.
                let sink = try H2OSink(directory: setupDirectory, logsPushes: true)
                defer { sink.stop() }
                let outcome = try APNsBench.blocking {
                    try await measure(
                        setup, audience: audience, serverKey: serverKey, seeded: seeded, directory: setupDirectory,
                        sink: sink, postmaster: postmaster)
                }
                roundOutcomes.append(outcome)
            }
            summarize(roundOutcomes)
            outcomes.append(roundOutcomes)
        }
        if rounds > 1 { summarizeRounds(outcomes) }
        try checkSinks(outcomes.flatMap { $0 })
    }

    /// Sends the campaign from `setup`'s tidingsd processes to `sink`, a fresh one, and waits for every push.
    static func measure(
        _ setup: Setup, audience: Int, serverKey: String, seeded: URL, directory: URL, sink: H2OSink,
        postmaster: Int32?
    ) async throws -> Outcome {
        var instances: [(process: Process, url: URL)] = []
        defer {
            for instance in instances {
                instance.process.terminate()
                instance.process.waitUntilExit()
            }
        }
        for index in 0..<setup.instances {
            var arguments = ["--apns-ca-file", sink.certificate]
            var dataDirectory = seeded
            if let database = setup.postgres {
                // Each instance has its own data directory, as on its own host; the store is what they share.
                dataDirectory = directory.appendingPathComponent("data-\(index)")
                try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
                arguments += ["--store", database]
            }
            instances.append(
                try EndToEndBench.startTidingsd(
                    dataDirectory: dataDirectory, apnsEndpoint: URL(string: sink.endpoint)!,
                    extraArguments: arguments, executable: setup.executable))
        }
        let api = ServerKeyClient(baseURL: instances[0].url, serverKey: serverKey)
        func tidingsdCPU() -> Double {
            instances.reduce(0) { $0 + ProcessCPU.seconds(pid: $1.process.processIdentifier) }
        }
        func postgresCPU() -> Double {
            guard setup.postgres != nil, let postmaster else { return 0 }
            return ProcessCPU.postgresSeconds(postmaster: postmaster)
        }

        // The end of the send is read from the sink's log, not by polling the message: a poll costs tidingsd
        // and the store work that grows with the audience, which would count against the store measured.
        guard let accessLog = sink.accessLog else { preconditionFailure("the sink logs pushes") }
        let received = try AccessLogFollower(path: accessLog)
        let (tidingsdBefore, postgresBefore) = (tidingsdCPU(), postgresCPU())
        let sendStart = ContinuousClock.now
        // The answer's `targets` counts the audience resolved so far; every push at the sink is the end.
        let (messageID, _) = try await api.sendToEveryone(title: "Fan-out bench \(setup.name)")
        func messageState() async throws -> (state: String, sent: Int) {
            let message = try await api.call("GET", "/v1/messages/\(messageID)").1
            return (message["state"]?.stringValue ?? "?", Int(message["counts"]?["sent"]?.integerValue ?? 0))
        }
        var lastGrowth = (lines: 0, at: ContinuousClock.now)
        while try received.count() < audience {
            let now = ContinuousClock.now
            if received.lines > lastGrowth.lines { lastGrowth = (received.lines, now) }
            // Pushes missing: the sink stands still and the message says it is over. Counted below, not thrown.
            if now - lastGrowth.at > .seconds(2), try await messageState().state == "done" { break }
            if now - sendStart > .seconds(1800) {
                throw APNsBench.Failure(
                    description: "\(setup.name): \(received.lines) pushes of \(audience) after 30 min")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = ContinuousClock.now - sendStart
        // The work of the send includes recording its outcomes: CPU is read once the store has them all.
        var state = try await messageState()
        while state.sent < audience, state.state != "done", ContinuousClock.now - sendStart < .seconds(1800) {
            try await Task.sleep(for: .milliseconds(50))
            state = try await messageState()
        }
        let (tidingsdAfter, postgresAfter) = (tidingsdCPU(), postgresCPU())
        let recorded = ContinuousClock.now - sendStart

        // Whatever a second instance might still send arrives before the message is done and the sink's log
        // has stood still for a second.
        let settleStart = ContinuousClock.now
        while state.state != "done", ContinuousClock.now - settleStart < .seconds(60) {
            try await Task.sleep(for: .milliseconds(200))
            state = try await messageState()
        }
        var tally = sink.tally()
        while true {
            try await Task.sleep(for: .seconds(1))
            let later = sink.tally()
            if later.pushes == tally.pushes { break }
            tally = later
        }
        // How the instances shared the work: the pushes each counted as accepted.
        var sentByInstance: [Int] = []
        for instance in instances {
            let client = ServerKeyClient(baseURL: instance.url, serverKey: serverKey)
            sentByInstance.append(Int(try await client.metric("tidings_pushes_sent_total")))
        }
        let outcome = Outcome(
            setup: setup, audience: audience, seconds: elapsed.seconds, tidingsdCPU: tidingsdAfter - tidingsdBefore,
            postgresCPU: postgresAfter - postgresBefore, sink: tally, sentByInstance: sentByInstance)
        let name = "campaign_fanout.\(setup.name)"
        Measure.report("\(name).send_to_all_at_sink", elapsed.seconds, "s")
        Measure.report("\(name).send_to_all_recorded_sent", recorded.seconds, "s")
        Measure.report("\(name).pushes_per_second", outcome.pushesPerSecond, "/s")
        Measure.report("\(name).tidingsd_cpu", outcome.tidingsdCPU, "CPU-s")
        Measure.report("\(name).postgres_cpu", outcome.postgresCPU, "CPU-s")
        Measure.report("\(name).sink_pushes", Double(tally.pushes), "")
        Measure.report("\(name).sink_duplicate_device_pushes", Double(tally.duplicateDevicePushes), "")
        Measure.report("\(name).sink_duplicate_apns_ids", Double(tally.duplicateAPNsIDs), "")
        Measure.report("\(name).sink_missing", Double(outcome.missing), "")
        Measure.line(
            "\(name): pushes sent by each instance (its metrics): \(sentByInstance.map(String.init).joined(separator: " + "))"
        )
        return outcome
    }

    /// The table BENCHMARKS.md records and the goals' ratios, for one round.
    static func summarize(_ outcomes: [Outcome]) {
        Measure.line(
            "setup      audience   pushes/s  tidingsd CPU-s  postgres CPU-s  per tidingsd CPU-s  per CPU-s in all"
                + "  sink pushes  duplicates (token / apns-id)  missing")
        for outcome in outcomes {
            let allCPU = outcome.tidingsdCPU + outcome.postgresCPU
            Measure.line(
                outcome.setup.name.padding(toLength: 9, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %8d  %9.0f  %14.2f  %14.2f  %18.0f  %16.0f  %11d  %13d / %-12d  %7d",
                        outcome.audience, outcome.pushesPerSecond, outcome.tidingsdCPU,
                        outcome.postgresCPU, Double(outcome.audience) / outcome.tidingsdCPU,
                        Double(outcome.audience) / allCPU, outcome.sink.pushes, outcome.sink.duplicateDevicePushes,
                        outcome.sink.duplicateAPNsIDs, outcome.missing))
        }
        let rate = { (name: String) in outcomes.first { $0.setup.name == name }?.pushesPerSecond }
        if let sqlite = rate("sqlite"), let single = rate("pg-1") {
            let pair = rate("pg-2").map { String(format: ", pg-2 %.2fx pg-1", $0 / single) } ?? ""
            Measure.line(String(format: "pg-1 %.2fx SQLite (goal 0.8x, issue #39)", single / sqlite) + pair)
        }
        if let single = rate("pg-1"), let peer = rate("pg-1-peer") {
            Measure.line(String(format: "pg-1 %.2fx pg-1-peer, the build before", single / peer))
        }
    }

    /// The goals' ratios of the medians over the rounds, and each setup's median CPU.
    static func summarizeRounds(_ rounds: [[Outcome]]) {
        func medians(_ name: String) -> (rate: Double, tidingsd: Double, postgres: Double)? {
            let runs = rounds.compactMap { round in round.first { $0.setup.name == name } }
            guard !runs.isEmpty else { return nil }
            return (
                Measure.median(runs.map(\.pushesPerSecond)), Measure.median(runs.map(\.tidingsdCPU)),
                Measure.median(runs.map(\.postgresCPU))
            )
        }
        Measure.line("== medians over \(rounds.count) rounds")
        for name in ["sqlite", "pg-1", "pg-2", "pg-1-peer"] {
            guard let figures = medians(name) else { continue }
            Measure.line(
                name.padding(toLength: 9, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %9.0f pushes/s  tidingsd %.2f CPU-s  postgres %.2f CPU-s", figures.rate,
                        figures.tidingsd, figures.postgres))
        }
        if let sqlite = medians("sqlite"), let single = medians("pg-1") {
            let pair = medians("pg-2").map { String(format: ", pg-2 %.2fx pg-1", $0.rate / single.rate) } ?? ""
            Measure.line(
                String(format: "pg-1 %.2fx SQLite in the medians (goal 0.8x, issue #39)", single.rate / sqlite.rate)
                    + pair)
        }
        if let single = medians("pg-1"), let peer = medians("pg-1-peer") {
            Measure.line(
                String(format: "pg-1 %.2fx pg-1-peer, the build before, in the medians", single.rate / peer.rate)
                    + (medians("sqlite").map { String(format: " (pg-1-peer %.2fx SQLite)", peer.rate / $0.rate) } ?? "")
            )
        }
    }

    /// Fails when any push was missing or sent twice.
    static func checkSinks(_ outcomes: [Outcome]) throws {
        let faulty = outcomes.filter {
            $0.sink.duplicateDevicePushes > 0 || $0.sink.duplicateAPNsIDs > 0 || $0.missing > 0
        }
        guard faulty.isEmpty else {
            throw APNsBench.Failure(
                description: "pushes missing or sent twice in "
                    + faulty.map { "\($0.setup.name) (\($0.missing) missing, \($0.sink.duplicateDevicePushes) twice)" }
                    .joined(separator: ", "))
        }
    }

    /// `tidingsd store copy` from the seeded SQLite store into `database`, an empty PostgreSQL database, by
    /// `executable` (the tidingsd beside this bench when nil), so that the schema is the one it sends with.
    static func copyStore(from seeded: URL, to database: String, executable: URL?) throws {
        let process = Process()
        process.executableURL =
            executable
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("tidingsd")
        process.arguments = [
            "store", "copy", "--from", "sqlite:" + seeded.appendingPathComponent(SQLiteStore.fileName).path, "--to",
            database,
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw APNsBench.Failure(description: "tidingsd store copy exited \(process.terminationStatus)")
        }
    }
}
