import Foundation
import TidingsModel
import TidingsStore

/// Audience expressions on the SQLite store with 1,000,000 installations of one app: a whole chunked resolution
/// (pages of 1000 in installation-id order, as ``CampaignResolver`` reads them) and a count, against the same
/// paging with no filter (`{"all": true}`) as the baseline.
enum AudienceBench {
    static let installations =
        Int(ProcessInfo.processInfo.environment["AUDIENCE_BENCH_INSTALLATIONS"] ?? "")
        ?? 1_000_000
    static let now: Int64 = 1_800_000_000_000

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        try store.createApp(AppRecord(id: "app", name: "app", bundleID: "com.example.app", createdAt: now))
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let versions = ["2.9.0", "2.10.0", "2.3.1", "3.0", "2.10.1-beta"]
        let languages = ["ja-JP", "en-US", "ko", "ja", "de-DE"]
        for index in 0..<installations {
            var update = InstallationUpdate()
            update.platform = .set(index % 4 == 0 ? "android" : "ios")
            update.apnsToken = .set(String(format: "%064x", index + 1))
            update.appVersion = .set(versions[index % versions.count])
            update.language = .set(languages[(index / 5) % languages.count])
            update.osVersion = .set("17.\(index % 12)")
            update.consentAds = .set(index % 3 == 0)
            if index % 10 == 1 { update.userID = .set("user-\(index)") }
            // Spread over 90 days, so `last_seen` selects a share.
            let seen = now - Int64(index % 90) * 86_400_000
            _ = try store.upsertInstallation(
                appID: "app", installationID: String(format: "inst-%08d", index), update: update, now: seen)
            if index % 20 == 1 {
                _ = try store.replaceTags(appID: "app", userID: "user-\(index)", tags: ["vip"], limits: TagLimits())
            }
        }
        print(
            "audience: \(installations) installations loaded in "
                + String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9) + " s")

        var baselineRows = 0
        let baseline = try seconds {
            var after: String?
            while true {
                let page = try store.installations(
                    appID: "app", query: InstallationQuery(afterInstallationID: after, limit: 1000))
                baselineRows += page.count
                guard page.count == 1000 else { break }
                after = page.last?.installationID
            }
        }
        Measure.report("resolve all (baseline, no filter), \(baselineRows) rows", baseline * 1000, "ms")

        let expressions = [
            "app_version >= 2.10",
            "language = ja and app_version >= 2.10 and platform = ios",
            "last_seen > 30d ago and not consent.ads = false",
            "tag:vip",
            "tag:vip and language in (ja, en) and app_version >= 2.3.1 and platform = ios and last_seen > 30d ago",
            "os_version >= 17.10",
        ]
        for text in expressions {
            let audience = try AudienceExpression.parse(text)
            var rows = 0
            var chunks = 0
            let resolve = try seconds {
                var after: String?
                while true {
                    let page = try store.installations(
                        appID: "app", audience: audience, afterInstallationID: after, limit: 1000, now: now)
                    rows += page.count
                    chunks += 1
                    guard page.count == 1000 else { break }
                    after = page.last?.installationID
                }
            }
            var count = 0
            let counting = try seconds {
                count = try store.countInstallations(appID: "app", audience: audience, now: now)
            }
            precondition(count == rows, "count \(count) != listed \(rows) for \(text)")
            Measure.report("resolve `\(text)`, \(rows) rows in \(chunks) chunks", resolve * 1000, "ms")
            Measure.report("count `\(text)`", counting * 1000, "ms")
        }
    }

    private static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
