import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Saved segments on the SQLite store with 1,000,000 installations of one app: counting a segment that joins a
/// custom attribute and a behaviour (`event purchase count >= 2 within 30d`), its parts alone, and membership of
/// a thousand given installations, and the sweep of a journey triggered by joining the segment, against the plain
/// `POST /v1/audience/count` over device fields measured in the same run. Counts are checked against what the
/// generator put in.
enum SegmentBench {
    static let installations =
        Int(ProcessInfo.processInfo.environment["SEGMENT_BENCH_INSTALLATIONS"] ?? "")
        ?? 1_000_000
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000
    static let plans = ["gold", "silver", "free", "free", "free"]

    /// The days before `now` of installation `index`'s purchases: every fourth buys one to three times.
    static func purchaseDays(_ index: Int) -> [Int64] {
        guard index % 4 == 0 else { return [] }
        return (0..<(1 + (index / 4) % 3)).map { Int64(index % 45 + 10 * $0) }
    }

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        try store.createApp(AppRecord(id: "app", name: "app", bundleID: "com.example.app", createdAt: now))
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let languages = ["ja-JP", "en-US", "ko", "ja", "de-DE"]
        var batch: [TidingsEvent] = []
        var events = 0
        var eventSeconds = 0.0
        func flush() throws {
            guard !batch.isEmpty else { return }
            events += batch.count
            eventSeconds += try seconds { _ = try store.insertEvents(appID: "app", events: batch, receivedAt: now) }
            batch.removeAll(keepingCapacity: true)
        }
        for index in 0..<installations {
            let id = String(format: "inst-%08d", index)
            var update = InstallationUpdate()
            update.platform = .set(index % 4 == 1 ? "android" : "ios")
            update.apnsToken = .set(String(format: "%064x", index + 1))
            update.appVersion = .set(index % 2 == 0 ? "2.10.0" : "2.9.0")
            update.language = .set(languages[(index / 5) % languages.count])
            update.attributes = ["plan": .string(plans[index % plans.count]), "orders": .number(Double(index % 10))]
            if index % 7 == 0 { update.attributes["interests"] = AttributeValue.list(["shoes", "running"]) }
            if index % 10 == 2 { update.userID = .set("user-\(index)") }
            _ = try store.upsertInstallation(appID: "app", installationID: id, update: update, now: now)
            if index % 20 == 2 {
                _ = try store.updateUserProfile(appID: "app", userID: "user-\(index)", now: now) { _ in
                    ["vip": .bool(true)]
                }
            }
            for days in purchaseDays(index) {
                batch.append(
                    TidingsEvent(type: EventType("purchase"), occurredAt: now - days * day, installationID: id))
            }
            if index % 2 == 0 {
                batch.append(
                    TidingsEvent(
                        type: EventType("app_open"), occurredAt: now - Int64(index % 30) * day, installationID: id))
            }
            if batch.count >= 1000 { try flush() }
        }
        try flush()
        print(
            "segments: \(installations) installations and \(events) events loaded in "
                + String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9)
                + " s (events: " + String(format: "%.1f", eventSeconds) + " s)")

        let segment = Segment(
            id: "seg_buyers", name: "gold_buyers",
            expression: "attributes.plan = gold and event purchase count >= 2 within 30d", createdAt: now,
            updatedAt: now)
        try store.saveSegment(appID: "app", segment)
        let expected = (0..<installations).filter { index in
            plans[index % plans.count] == "gold" && purchaseDays(index).filter { $0 <= 30 }.count >= 2
        }

        // The plain count over device fields, as POST /v1/audience/count runs it.
        for text in ["platform = ios and language = ja", "app_version >= 2.10"] {
            let audience = try AudienceExpression.parse(text)
            var count = 0
            let time = try seconds { count = try store.countInstallations(appID: "app", audience: audience, now: now) }
            Measure.report("count `\(text)` (device fields, baseline), \(count)", time * 1000, "ms")
        }

        // The segment as GET /v1/segments/{id}/count runs it: the app's segments read, expanded, counted.
        var count = 0
        let segmentTime = try seconds {
            let definitions = Dictionary(
                try store.segments(appID: "app").map { ($0.name, $0.expression) }, uniquingKeysWith: { $1 })
            let audience = try AudienceExpression.parse("segment:gold_buyers", segments: definitions)
            count = try store.countInstallations(appID: "app", audience: audience, now: now)
        }
        precondition(count == expected.count, "segment counted \(count), expected \(expected.count)")
        Measure.report("count `segment:gold_buyers` (\(segment.expression)), \(count)", segmentTime * 1000, "ms")

        for text in [
            "attributes.plan = gold", "event purchase count >= 2 within 30d", "not event app_open within 14d",
            "attributes.interests contains shoes", "user.vip = true", "segment:gold_buyers and language = ja",
        ] {
            let audience = try AudienceExpression.parse(text, segments: [segment.name: segment.expression])
            var counted = 0
            let time = try seconds {
                counted = try store.countInstallations(appID: "app", audience: audience, now: now)
            }
            Measure.report("count `\(text)`, \(counted)", time * 1000, "ms")
        }

        // Membership of given installations (a recheck as a zone comes due): read by key, not by scanning.
        let audience = try AudienceExpression.parse(segment.expression)
        let probe = stride(from: 0, to: installations, by: max(1, installations / 1000)).map {
            String(format: "inst-%08d", $0)
        }
        var members = Set<String>()
        let membership = try seconds {
            members = try store.installationIDs(appID: "app", audience: audience, among: probe, now: now)
        }
        let expectedMembers = Set(expected.map { String(format: "inst-%08d", $0) }).intersection(probe)
        precondition(members == expectedMembers, "membership \(members.count) != \(expectedMembers.count)")
        Measure.report(
            "membership of \(probe.count) given installations in the segment, \(members.count)", membership * 1000,
            "ms")

        // The segment resolved as a campaign reads it: pages of 1000 in installation-id order.
        var rows = 0
        let resolve = try seconds {
            var after: String?
            while true {
                let page = try store.installations(
                    appID: "app", audience: audience, afterInstallationID: after, limit: 1000, now: now)
                rows += page.count
                guard page.count == 1000 else { break }
                after = page.last?.installationID
            }
        }
        precondition(rows == expected.count, "resolved \(rows), expected \(expected.count)")
        Measure.report("resolve the segment in chunks of 1000, \(rows) rows", resolve * 1000, "ms")

        try sweepJourney(store, audience: audience, members: expected.count)
    }

    /// The sweep of a journey triggered by joining the segment (``JourneySegmentSweep``): its first look, which
    /// records the members the journey starts with; a look where nothing changed; a look after 1,000
    /// installations joined (their plan became gold), each of whom enters. Then the first and an unchanged look
    /// of a large segment, `attributes.plan = gold` (a fifth of the installations).
    static func sweepJourney(_ store: SQLiteStore, audience: AudienceExpression, members: Int) throws {
        func look(_ segment: String, _ audience: AudienceExpression, _ label: String) throws -> Int {
            let journey = JourneyRecord(
                id: "jrn_" + segment, appID: "app", name: "Joined \(segment)", state: .active, version: 1,
                triggerKind: "segment", triggerKey: segment, createdAt: now, updatedAt: now)
            if try store.journey(appID: "app", id: journey.id) == nil {
                try store.createJourney(journey, definition: "{}")
            }
            var entered = 0
            let time = try seconds {
                entered = try JourneySegmentSweep(store: store).run(
                    journey, firstStep: "hello", segment: segment, audience: audience, includeCurrentMembers: false,
                    minimumGap: nil, now: now)
            }
            Measure.report("segment trigger sweep of \(segment): \(label), \(entered) entered", time * 1000, "ms")
            return entered
        }
        let first = try look("gold_buyers", audience, "first look records \(members) members")
        let unchanged = try look("gold_buyers", audience, "nothing changed")
        precondition(first == 0 && unchanged == 0, "the first two looks entered \(first) and \(unchanged)")
        let joiners = (0..<installations).filter { index in
            plans[index % plans.count] != "gold" && purchaseDays(index).filter { $0 <= 30 }.count >= 2
        }.prefix(1000)
        for index in joiners {
            var update = InstallationUpdate()
            update.attributes = ["plan": .string("gold")]
            _ = try store.upsertInstallation(
                appID: "app", installationID: String(format: "inst-%08d", index), update: update, now: now)
        }
        let entered = try look("gold_buyers", audience, "\(joiners.count) joined")
        precondition(entered == joiners.count, "entered \(entered), expected \(joiners.count)")

        let gold = try AudienceExpression.parse("attributes.plan = gold")
        let golden = try store.countInstallations(appID: "app", audience: gold, now: now)
        _ = try look("gold", gold, "first look records \(golden) members")
        _ = try look("gold", gold, "nothing changed")
    }

    private static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
