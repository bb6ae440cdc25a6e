import Foundation
import TidingsModel
import TidingsStore

/// One sweep of a segment-triggered journey: the segment's members now, read page by page in installation-id
/// order as a campaign resolves an audience, diffed with the members the store recorded; joins enter, leaves are
/// recorded. The first sweep records the members the journey starts with (entering them only when the trigger
/// says `include_current_members`).
///
/// Its cost grows with the segment's members, not with the app's installations; it holds one subject per member
/// in memory while it runs.
public struct JourneySegmentSweep: Sendable {
    public let store: any Store
    /// Installations read per page, and joins or leaves written per transaction.
    public let pageSize: Int

    public init(store: any Store, pageSize: Int = 1000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Sweeps `journey`, whose trigger is joining `segment` (`audience`, expanded); returns how many entered.
    /// - Parameter minimumGap: as ``JourneyStore/enterJourneys(_:)`` takes it, from the journey's entry rule.
    public func run(
        _ journey: JourneyRecord, firstStep: String, segment: String, audience: AudienceExpression,
        includeCurrentMembers: Bool, minimumGap: Int64?, now: Int64
    ) throws -> Int {
        // Read before the members: a join a signal records in between is then found recorded, not taken for a
        // leave.
        let recorded = try store.journeySegmentMembers(journeyID: journey.id, segment: segment)
        var members = Set<String>()
        var after: String?
        while true {
            let page = try store.installations(
                appID: journey.appID, audience: audience, afterInstallationID: after, limit: pageSize, now: now)
            for installation in page {
                members.insert(Self.subject(of: installation))
            }
            guard page.count == pageSize, let last = page.last else { break }
            after = last.installationID
        }
        let baseline = recorded == nil
        let joined = members.subtracting(recorded ?? []).sorted()
        let left = (recorded ?? []).subtracting(members).sorted()
        var entered = 0
        for start in stride(from: 0, to: max(joined.count, left.count), by: pageSize) {
            let joins = joined[min(start, joined.count)..<min(start + pageSize, joined.count)].map {
                Self.join(
                    journey, firstStep: firstStep, subject: $0, minimumGap: minimumGap, now: now,
                    enters: !baseline || includeCurrentMembers)
            }
            let outcomes = try store.recordJourneySegmentMembership(
                journeyID: journey.id, segment: segment, joined: joins,
                left: Array(left[min(start, left.count)..<min(start + pageSize, left.count)]),
                takingBaseline: baseline, now: now)
            entered += outcomes.filter { $0 == .entered }.count
        }
        if baseline { try store.completeJourneySegmentBaseline(journeyID: journey.id, segment: segment, now: now) }
        return entered
    }

    /// Whose membership an installation makes: its user's when it is logged in, its own otherwise.
    public static func subject(of installation: Installation) -> String {
        installation.userID.map { "user:" + $0 } ?? "installation:" + installation.installationID
    }

    /// The join of `subject`, entering them at `firstStep` when `enters`.
    public static func join(
        _ journey: JourneyRecord, firstStep: String, subject: String, minimumGap: Int64?, now: Int64, enters: Bool
    ) -> JourneySegmentJoin {
        let run = JourneyRunRecord(
            id: "jr_" + UUID().lowercasedString, journeyID: journey.id, appID: journey.appID, version: journey.version,
            subject: subject, state: .ready, stepID: "", resumeStep: firstStep, dueAt: now, enteredAt: now,
            entryKey: "")
        return JourneySegmentJoin(run: run, minimumGap: minimumGap, enters: enters)
    }
}
