import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Answers what sending a message would do, reading the audience the way its resolver will and deciding each
/// installation the way a fan-out worker will, and writing nothing.
///
/// The same code as a real send decides every step: ``AudienceChunk`` reads the audience a bounded chunk at a
/// time, ``DeliveryBuilder`` gives each installation its variant, language, due time and the skips decided at
/// resolution (environment, control, local time), ``DeliveryPolicy`` decides at the moment the delivery would
/// be claimed (``DryRunOutcome``), templates are rendered by ``PersonalizedPayload`` and the app's frequency cap
/// is counted as the claim counts it, from the store's slots as they are. ``DryRunThrottle`` then paces what
/// would be sent. Memory is bounded by one chunk and the distinct send instants.
struct MessageDryRun {
    let store: any Store
    var policy = DeliveryPolicy()
    /// Installations read at a time, as the resolver reads them.
    var chunkSize = CampaignResolver.Configuration().chunkSize
    var linter = PayloadLinter()
    var previews = DryRunPreviews()

    /// - Parameter evaluatedAt: now, by the server's clock.
    func run(_ accepted: AcceptedMessage, evaluatedAt: Date) throws -> DryRunReport {
        let message = accepted.record
        let plan = accepted.plan
        let resolvedAt = message.resolveAt ?? message.createdAt
        var builder = DeliveryBuilder(message: message, plan: plan, now: Date(millisecondsSince1970: resolvedAt))
        let cap = message.messageType.isMarketing ? accepted.settings.frequencyCap : nil
        var tally = DryRunTally()
        var samples = Samples()
        var templates: [String: PersonalizedPayload?] = [:]
        var cursor: String?
        while true {
            let chunk = try AudienceChunk.read(
                plan: plan, appID: message.appID, cursor: cursor, limit: chunkSize, now: resolvedAt, store: store)
            for _ in chunk.unknownInstallationIDs { tally.skip(DeliveryPolicy.SkipReason.unknownInstallation.rawValue) }
            // As the send does, templates read the profile of each installation's user (`{{user.NAME}}`).
            let profiles = try store.userAttributes(of: chunk.members.map(\.installation), appID: message.appID)
            // Deliveries that pass every rule but the cap, by the instant the cap is counted at.
            var capped: [Int64: [(delivery: MessageDelivery, installation: Installation, deferred: Bool)]] = [:]
            for member in chunk.members {
                tally.matched += 1
                let installation = member.installation.withUserAttributes(from: profiles)
                guard let delivery = builder.delivery(for: installation, targetUserID: member.targetUserID) else {
                    tally.awaitingWinner += 1
                    continue
                }
                let key = MessageRecord.payloadKey(variant: delivery.variant, language: delivery.language)
                samples.offer(key, installation, sends: false)
                let outcome = DryRunOutcome.decide(
                    delivery, of: message, installation: installation, resolvedAt: resolvedAt, policy: policy)
                guard case .send(let at, let deferred) = outcome else {
                    if case .skip(let reason) = outcome { tally.skip(reason) }
                    continue
                }
                let template: PersonalizedPayload?
                if let known = templates[key] {
                    template = known
                } else {
                    template = PersonalizedPayload.compile(
                        message.payload(variant: delivery.variant, language: delivery.language),
                        limit: message.kind.payloadLimit)
                    templates[key] = .some(template)
                }
                if let template, case .tooLarge = template.render(for: installation) {
                    tally.skip(PersonalizedPayload.tooLargeReason)
                    continue
                }
                if cap != nil {
                    capped[at, default: []].append((delivery, installation, deferred))
                } else {
                    send(delivery, at: at, deferred: deferred, of: message, into: &tally)
                    samples.offer(key, installation, sends: true)
                }
            }
            if let cap {
                for (at, held) in capped.sorted(by: { $0.key < $1.key }) {
                    let taken = try store.frequencySlotCounts(
                        appID: message.appID, installationIDs: held.map(\.delivery.installationID),
                        since: at - cap.windowSeconds * 1000)
                    for (delivery, installation, deferred) in held {
                        if taken[delivery.installationID, default: 0] >= cap.count {
                            tally.skip(DeliveryPolicy.SkipReason.frequencyCap.rawValue)
                        } else {
                            send(delivery, at: at, deferred: deferred, of: message, into: &tally)
                            samples.offer(
                                MessageRecord.payloadKey(variant: delivery.variant, language: delivery.language),
                                installation, sends: true)
                        }
                    }
                }
            }
            if chunk.finished { break }
            cursor = chunk.cursor
        }
        let pace = DryRunDuration.pace(
            messageRate: message.ratePerSecond, appRate: accepted.settings.ratePerSecond,
            transactional: !message.messageType.isMarketing)
        var localTime: LocalDateTime?
        if case .localTime(let time, _, _) = plan.schedule { localTime = time }
        let summary = tally.summarize(
            variants: plan.hasVariants ? plan.arms.compactMap(\.id) : [], hasControl: plan.control > 0,
            rate: pace.rate, limit: pace.limit, localTime: localTime)
        return DryRunReport(
            evaluatedAt: evaluatedAt.millisecondsSince1970, sendAt: resolvedAt, matched: tally.matched,
            wouldSend: summary.wouldSend, skipped: summary.skipped, deferredNight: tally.deferredNight,
            awaitingWinner: tally.awaitingWinner,
            byVariant: summary.byVariant, localSchedule: summary.localSchedule, duration: summary.duration,
            renderings: renderings(message, plan: plan, samples: samples, at: resolvedAt),
            notes: notes(accepted, pace: pace.limit))
    }

    private func send(
        _ delivery: MessageDelivery, at: Int64, deferred: Bool, of message: MessageRecord,
        into tally: inout DryRunTally
    ) {
        tally.send(
            DryRunTally.WaveKey(
                sendAt: at, expiresAt: DeliveryPolicy.expiry(of: delivery, message), dueAt: delivery.dueAt),
            variant: delivery.variant, deferred: deferred)
    }

    /// One rendering per (variant, language) the message builds, personalised for the first installation of the
    /// audience that would receive it (else the first assigned it), sized and linted.
    private func renderings(_ message: MessageRecord, plan: CampaignPlan, samples: Samples, at: Int64)
        -> [DryRunRendering]
    {
        var renderings: [DryRunRendering] = []
        for arm in plan.arms {
            for language in arm.languages {
                let languageKey = arm.isLocalized ? language : nil
                let key = MessageRecord.payloadKey(variant: arm.id, language: languageKey)
                var bytes = message.payload(variant: arm.id, language: languageKey)
                let sample = samples.sending[key] ?? samples.assigned[key]
                // No limit here: a rendering over APNs' limit is shown whole, with its size.
                if let sample, let template = PersonalizedPayload.compile(bytes, limit: .max),
                    case .payload(let rendered) = template.render(for: sample)
                {
                    bytes = rendered
                }
                let lint =
                    (try? PayloadReport.analyze(
                        bytes, now: Date(millisecondsSince1970: at), isVoIP: message.kind == .voip, linter: linter
                    ).warnings) ?? []
                var rendering = DryRunRendering(
                    variant: arm.id, language: languageKey, installationID: sample?.installationID,
                    payload: (try? JSONValue.parse(bytes)) ?? .null, payloadBytes: bytes.count,
                    limitBytes: message.kind.payloadLimit, lint: lint)
                rendering.devicePreviews = previews.previews(of: bytes, kind: message.kind)
                renderings.append(rendering)
            }
        }
        return renderings
    }

    private func notes(_ accepted: AcceptedMessage, pace: DryRunDuration.Limit) -> [String] {
        var notes = [
            "Payloads carry a placeholder message id of the same length as the one a real send is given.",
            DryRunPreviews.note(kind: accepted.record.kind),
        ]
        if accepted.plan.hasVariants && accepted.record.campaignID == nil {
            notes.append(
                "Without campaign_id the split hashes the message id, which a real send draws anew: the variants' "
                    + "counts are those of one draw.")
        }
        if pace == .none {
            notes.append("No rate applies: pushes go out as fast as the provider takes them; no duration is estimated.")
        } else {
            notes.append(
                "The duration assumes no other message of the app is sending at the same time (they share its ceiling)."
            )
        }
        if accepted.plan.schedule.isLocalTime {
            notes.append(
                "Each zone is decided at its own due time against the installations as they are now; whoever "
                    + "leaves the audience before then is skipped by the send (left_audience), not here.")
        }
        return notes
    }

    /// The installation each payload key is rendered for.
    struct Samples {
        /// The first that would receive it.
        var sending: [String: Installation] = [:]
        /// The first assigned it, sent or not.
        var assigned: [String: Installation] = [:]

        mutating func offer(_ key: String, _ installation: Installation, sends: Bool) {
            if sends {
                if sending[key] == nil { sending[key] = installation }
            } else if assigned[key] == nil {
                assigned[key] = installation
            }
        }
    }
}
