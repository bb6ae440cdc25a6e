import TidingsCampaigns
import TidingsStore

/// Counts a dry run's decisions as the audience streams past, then paces what would be sent
/// (``DryRunThrottle``) into the reach, the variants' shares, the local schedule and the duration.
///
/// Memory is bounded by the distinct send instants (one per zone for a local-time send), not the audience.
struct DryRunTally {
    /// Pushes that become due at one instant, expire at one instant, and belong to one local due time.
    struct WaveKey: Hashable {
        var sendAt: Int64
        var expiresAt: Int64?
        /// The zone's due time of a local-time send (kept when a night deferral moves ``sendAt``).
        var dueAt: Int64?
    }

    struct Summary {
        var wouldSend = 0
        var skipped: [String: Int]
        var byVariant: [DryRunReport.VariantReach] = []
        var localSchedule: [DryRunReport.LocalWave] = []
        var duration: DryRunDuration
    }

    /// Every key a real send counts under `skipped_by_reason`.
    static let reasons: [String] =
        DeliveryPolicy.SkipReason.allCases.map(\.rawValue) + ResolutionSkipReason.allCases.map(\.rawValue)
        + [PersonalizedPayload.tooLargeReason]

    var matched = 0
    var skipped = Dictionary(uniqueKeysWithValues: reasons.map { ($0, 0) })
    var deferredNight = 0
    /// Outside a split test's test share: sent the winner later, by a follow-up message.
    var awaitingWinner = 0
    /// By wave, how many per variant ("" without variants).
    private(set) var waves: [WaveKey: [String: Int]] = [:]

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

    mutating func send(_ wave: WaveKey, variant: String?, deferred: Bool) {
        waves[wave, default: [:]][variant ?? "", default: 0] += 1
        if deferred { deferredNight += 1 }
    }

    /// - Parameters:
    ///   - variants: the message's variant ids in order; empty without variants.
    ///   - hasControl: whether it holds back a control group.
    ///   - localTime: the local time of a local-time send, for its zones' offsets.
    func summarize(
        variants: [String], hasControl: Bool, rate: Int?, limit: DryRunDuration.Limit, localTime: LocalDateTime?
    ) -> Summary {
        let keys = waves.keys.sorted {
            ($0.sendAt, $0.expiresAt ?? .max, $0.dueAt ?? 0) < ($1.sendAt, $1.expiresAt ?? .max, $1.dueAt ?? 0)
        }
        let paced = DryRunThrottle(rate: rate).run(
            keys.map { DryRunThrottle.Wave(dueAt: $0.sendAt, expiresAt: $0.expiresAt, count: total(waves[$0])) })
        var summary = Summary(
            skipped: skipped, duration: DryRunDuration(seconds: 0, ratePerSecond: rate, limitedBy: limit))
        var sentByVariant: [String: Int] = [:]
        var sentByDue: [Int64: Int] = [:]
        for (index, key) in keys.enumerated() {
            let counts = waves[key] ?? [:]
            let sent = paced.sent[index]
            let expired = total(counts) - sent
            summary.skipped[DeliveryPolicy.SkipReason.expired.rawValue, default: 0] += expired
            summary.wouldSend += sent
            let lost = Self.share(expired, of: counts)
            for (variant, count) in counts { sentByVariant[variant, default: 0] += count - (lost[variant] ?? 0) }
            if let dueAt = key.dueAt { sentByDue[dueAt, default: 0] += sent }
        }
        summary.byVariant = variants.map {
            DryRunReport.VariantReach(variant: $0, wouldSend: sentByVariant[$0] ?? 0, holdout: nil)
        }
        if hasControl {
            summary.byVariant.append(
                DryRunReport.VariantReach(
                    variant: CampaignVariant.controlID, wouldSend: 0,
                    holdout: skipped[ResolutionSkipReason.control.rawValue] ?? 0))
        }
        if let localTime {
            let report = LocalScheduleReport(time: localTime, countsByDue: [:])
            summary.localSchedule = sentByDue.keys.sorted().map { due in
                DryRunReport.LocalWave(
                    dueAt: due,
                    utcOffsetSeconds: report.utcOffset(at: due).map { _ in
                        Int((localTime.asUTC.millisecondsSince1970 - due) / 1000)
                    }, wouldSend: sentByDue[due] ?? 0)
            }
        }
        summary.duration.firstSendAt = paced.firstSendAt
        summary.duration.lastSendAt = paced.lastSendAt
        if rate != nil, let first = paced.firstSendAt, let end = paced.endsAt {
            summary.duration.seconds = Double(end - first) / 1000
        }
        return summary
    }

    private func total(_ counts: [String: Int]?) -> Int { counts?.values.reduce(0, +) ?? 0 }

    /// `count` taken from `counts` in proportion (largest remainders, ties by key): which pushes of a wave the
    /// throttle pushes past their expiry is not known per variant, only how many.
    static func share(_ count: Int, of counts: [String: Int]) -> [String: Int] {
        let total = counts.values.reduce(0, +)
        guard count > 0, total > 0 else { return [:] }
        var taken: [String: Int] = [:]
        var remainders: [(key: String, remainder: Int)] = []
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) {
            taken[key] = value * count / total
            remainders.append((key, value * count % total))
        }
        var left = count - taken.values.reduce(0, +)
        for entry in remainders.sorted(by: { ($0.remainder, $1.key) > ($1.remainder, $0.key) }) where left > 0 {
            taken[entry.key, default: 0] += 1
            left -= 1
        }
        return taken
    }
}
