import Foundation
import Tidings
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// A campaign to a large audience through a release `tidingsd` (its own process, SQLite on disk) to the h2o
/// sink of ``APNsBench``: for each size (`TIDINGS_BENCH_CAMPAIGN_SIZES`, default `100000,1000000`) the time
/// from `POST /v1/messages` to its answer, from the answer to the first and to the last push accepted, the
/// send rate, and tidingsd's resident memory (before the send, sampled during it, and its peak `VmHWM`);
/// then the raw ``APNsClient`` alone against the same sink in the same run, as the rate to compare with.
enum CampaignBench {
    static let bundleID = "com.example.campaign-bench"

    static func run() throws {
        let sizes = (ProcessInfo.processInfo.environment["TIDINGS_BENCH_CAMPAIGN_SIZES"] ?? "100000,1000000")
            .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-campaign-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try H2OSink(directory: directory)
        defer { sink.stop() }
        Measure.line(
            "campaign: tidingsd (release, own process, SQLite on disk) → h2o sink (TLS, 1 thread, 100 streams)")
        var largest = 0
        for size in sizes {
            try APNsBench.blocking { try await measure(installations: size, sink: sink, root: directory) }
            largest = max(largest, size)
        }
        // The raw client's rate does not depend on the audience; 100,000 pushes measure it well.
        let pushes = min(largest, 100_000)
        let raw = try APNsBench.blocking {
            try await SendPathBench.rawRate(
                sink.clientConfiguration, pushes: pushes, inFlight: FanoutWorker.Configuration().maximumInFlight)
        }
        Measure.report("campaign.raw_client_\(pushes)_pushes", raw, "/s")
    }

    static func measure(installations: Int, sink: H2OSink, root: URL) async throws {
        let directory = root.appendingPathComponent("size-\(installations)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seedStart = ContinuousClock.now
        let serverKey = try SeededApp.create(directory: directory, bundleID: bundleID, installations: installations)
            .app.serverKey
        Measure.line(
            "campaign: \(installations) installations seeded in \(Int((ContinuousClock.now - seedStart).seconds)) s")

        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: directory, apnsEndpoint: URL(string: sink.endpoint)!,
            extraArguments: ["--apns-ca-file", sink.certificate])
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        let pid = tidingsd.process.processIdentifier
        let api = ServerKeyClient(baseURL: tidingsd.url, serverKey: serverKey)
        let idleKiB = Measure.processMemoryKiB(pid: pid, field: "VmRSS")

        let sendStart = ContinuousClock.now
        let (messageID, _) = try await api.sendToEveryone(title: "Campaign bench")
        let answered = ContinuousClock.now
        var firstPush: Duration?
        var resolved: Duration?
        var largestRSS = 0
        while true {
            let (_, message) = try await api.call("GET", "/v1/messages/\(messageID)")
            let sent = Int(message["counts"]?["sent"]?.integerValue ?? 0)
            let state = message["state"]?.stringValue ?? "?"
            largestRSS = max(largestRSS, Measure.processMemoryKiB(pid: pid, field: "VmRSS"))
            if firstPush == nil, sent > 0 { firstPush = ContinuousClock.now - answered }
            if resolved == nil, state != "resolving", state != "scheduled" { resolved = ContinuousClock.now - answered }
            if sent >= installations { break }
            if state == "done" || state == "cancelled" {
                throw APNsBench.Failure(description: "message ended \(state) with \(sent) of \(installations) sent")
            }
            if ContinuousClock.now - answered > .seconds(3600) { throw APNsBench.Failure(description: "timed out") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let lastPush = ContinuousClock.now - answered
        let peakKiB = Measure.processMemoryKiB(pid: pid, field: "VmHWM")

        let name = "campaign.\(installations)"
        Measure.report("\(name).post_to_answer", (answered - sendStart).seconds * 1000, "ms")
        Measure.report("\(name).answer_to_first_push", (firstPush ?? lastPush).seconds, "s")
        Measure.report("\(name).answer_to_audience_resolved", (resolved ?? lastPush).seconds, "s")
        Measure.report("\(name).answer_to_last_push", lastPush.seconds, "s")
        Measure.report("\(name).pushes_per_second", Double(installations) / lastPush.seconds, "/s")
        Measure.report("\(name).tidingsd_rss_before_send", Double(idleKiB) / 1024, "MiB")
        Measure.report("\(name).tidingsd_rss_largest_sample", Double(largestRSS) / 1024, "MiB")
        Measure.report("\(name).tidingsd_peak_rss", Double(peakKiB) / 1024, "MiB")
    }
}
