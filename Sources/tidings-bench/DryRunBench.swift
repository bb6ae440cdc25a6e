import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// A dry run of a campaign to 1,000,000 installations (`DRYRUN_BENCH_INSTALLATIONS`) on a SQLite store on disk,
/// through the API in process: an ad with two variants in two languages, a control group, a message rate, and
/// the app's frequency cap, to installations with mixed consents, time zones and languages. Beside it, in the
/// same run, resolving the same message for real (`POST /v1/messages`, then ``CampaignResolver`` to the end).
/// Each is reported as wall time and as the process's CPU time (the machine may be shared).
enum DryRunBench {
    static let installations =
        Int(ProcessInfo.processInfo.environment["DRYRUN_BENCH_INSTALLATIONS"] ?? "") ?? 1_000_000

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-dryrun-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let zones = ["Asia/Tokyo", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]
        let seedStart = ContinuousClock.now
        let (app, store) = try SeededApp.create(
            directory: directory, bundleID: "com.example.dryrun-bench", installations: installations
        ) { index, update in
            update.timezone = .set(zones[index % zones.count])
            update.language = .set(index % 3 == 0 ? "ja-JP" : "en-US")
            update.consentNotifications = .set(index % 50 != 0)
            update.consentAds = .set(index % 7 != 0)
            update.consentNightAds = .set(index % 2 == 0)
        }
        try store.updateSendSettings(
            appID: app.app.id,
            AppSendSettings(ratePerSecond: 3000, frequencyCap: FrequencyCap(count: 3, windowSeconds: 86_400)))
        Measure.line(
            "dryrun: \(installations) installations seeded in \(Int((ContinuousClock.now - seedStart).seconds)) s")
        let api = TidingsAPI(
            store: store, configuration: TidingsAPI.Configuration(), logger: .disabled(),
            provider: RecordingPushProvider())
        let body: JSONValue = [
            "target": ["all": true], "message_type": "ad", "campaign_id": "bench", "control": 0.05,
            "rate_per_second": 5000, "ttl": 600,
            "variants": [
                [
                    "id": "a", "weight": 1,
                    "content": [
                        "default": ["title": "Sale", "body": #"Hi {{attributes.first_name | default: "there"}}"#],
                        "ja": ["title": "セール", "body": "本日限り"],
                    ],
                ],
                ["id": "b", "weight": 1, "content": ["title": "Last day", "body": "Half price"]],
            ],
        ]
        @Sendable func post(_ body: JSONValue) async throws -> (status: Int, json: JSONValue) {
            let request = HTTPRequest(
                method: "POST", path: "/v1/messages", headers: ["Authorization": "Bearer \(app.serverKey)"],
                body: Data(try body.serialized()))
            let response = try await api.router.handler(request)
            return (response.status, try JSONValue.parse(response.body))
        }
        var object = body.objectValue ?? [:]
        object["dry_run"] = true
        let dryRunBody = JSONValue.object(object)
        let pid = ProcessInfo.processInfo.processIdentifier
        let cpuBefore = ProcessCPU.seconds(pid: pid)
        let (dryRun, answer) = try APNsBench.blocking {
            let start = ContinuousClock.now
            let (status, json) = try await post(dryRunBody)
            guard status == 200 else { throw APNsBench.Failure(description: "dry run answered \(status): \(json)") }
            return ((ContinuousClock.now - start).seconds, json)
        }
        let dryRunCPU = ProcessCPU.seconds(pid: pid) - cpuBefore
        let resolveCPUBefore = ProcessCPU.seconds(pid: pid)
        let resolve = try APNsBench.blocking {
            let start = ContinuousClock.now
            let (status, json) = try await post(body)
            guard status == 202 else { throw APNsBench.Failure(description: "send answered \(status): \(json)") }
            _ = try await CampaignResolver(store: store).drain()
            return (ContinuousClock.now - start).seconds
        }
        let resolveCPU = ProcessCPU.seconds(pid: pid) - resolveCPUBefore
        let reach = answer["reach"] ?? .null
        Measure.line("dryrun: would_send \(reach["would_send"] ?? .null), skipped \(reach["skipped"] ?? .null)")
        Measure.report("dryrun.\(installations).dry_run", dryRun * 1000, "ms")
        Measure.report("dryrun.\(installations).dry_run_cpu", dryRunCPU * 1000, "ms")
        Measure.report("dryrun.\(installations).resolve_for_real", resolve * 1000, "ms")
        Measure.report("dryrun.\(installations).resolve_for_real_cpu", resolveCPU * 1000, "ms")
    }
}
