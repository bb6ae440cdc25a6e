import TidingsCampaigns
import TidingsModel

/// The answer of `POST /v1/messages` with `"dry_run": true`: what sending the message now would do, for the
/// audience as it is, without sending or writing anything (docs/campaigns.md, "Dry run").
public struct DryRunReport: Sendable, Hashable {
    /// What one variant (or the control group) would get.
    public struct VariantReach: Sendable, Hashable {
        public var variant: String
        public var wouldSend: Int
        /// The control group's size; nil for a variant.
        public var holdout: Int?
    }

    /// A local-time send's pushes that become due at one instant.
    public struct LocalWave: Sendable, Hashable {
        public var dueAt: Int64
        /// The offset of the zones whose wall clocks read the local time then; nil for pushes sent at once
        /// (`if_past: send_now`).
        public var utcOffsetSeconds: Int?
        public var wouldSend: Int
    }

    /// Unix milliseconds.
    public var evaluatedAt: Int64
    /// When resolution would start (unix milliseconds).
    public var sendAt: Int64
    /// Installations the target selects, before any rule.
    public var matched: Int
    public var wouldSend: Int
    /// By every `skipped_by_reason` key a real send counts, 0 when none.
    public var skipped: [String: Int]
    /// Ads held to 08:00 local (`night: defer`): sent later, counted in ``wouldSend`` unless they expire.
    public var deferredNight: Int
    /// A split test that picks a winner: the people outside its test share, who get no push now and the winner
    /// later, from the follow-up message (not counted in ``wouldSend`` or ``skipped``).
    public var awaitingWinner: Int
    /// Per variant in the message's order, then the control group; empty without variants.
    public var byVariant: [VariantReach]
    /// Local-time sends only, by due time.
    public var localSchedule: [LocalWave]
    public var duration: DryRunDuration
    public var renderings: [DryRunRendering]
    /// What was estimated or left out, in sentences.
    public var notes: [String]

    public var json: JSONValue {
        func count(_ value: Int) -> JSONValue { .integer(Int64(value)) }
        return [
            "dry_run": true, "evaluated_at": .integer(evaluatedAt), "send_at": .integer(sendAt),
            "audience": ["matched": count(matched)],
            "reach": [
                "would_send": count(wouldSend), "skipped": .object(skipped.mapValues(count)),
                "deferred": ["night": count(deferredNight)], "awaiting_winner": count(awaitingWinner),
            ],
            "by_variant": .array(
                byVariant.map { reach in
                    var object: [String: JSONValue] = [
                        "variant": .string(reach.variant), "would_send": count(reach.wouldSend),
                    ]
                    if let holdout = reach.holdout { object["holdout"] = count(holdout) }
                    return .object(object)
                }),
            "local_schedule": .array(
                localSchedule.map { wave in
                    [
                        "due_at": .integer(wave.dueAt),
                        "utc_offset_seconds": wave.utcOffsetSeconds.map(count) ?? .null,
                        "would_send": count(wave.wouldSend),
                    ]
                }),
            "duration": duration.json, "renderings": .array(renderings.map(\.json)),
            "notes": .array(notes.map(JSONValue.string)),
        ]
    }
}
