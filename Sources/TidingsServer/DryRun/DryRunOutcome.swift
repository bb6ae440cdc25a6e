import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// What a real send does with one resolved delivery, decided without writing anything: the delivery as
/// resolution builds it (``DeliveryBuilder``), then ``DeliveryPolicy`` at the moment a worker would claim it
/// (its due time, and for an ad held to the morning, that morning).
enum DryRunOutcome: Equatable {
    /// Counted under this `skipped_by_reason` key.
    case skip(String)
    /// Claimed and sent at `at` (unix milliseconds); `deferred` when an ad's night held it until then.
    case send(at: Int64, deferred: Bool)

    /// - Parameter resolvedAt: when resolution runs (unix milliseconds): a delivery due earlier is claimed then.
    static func decide(
        _ delivery: MessageDelivery, of message: MessageRecord, installation: Installation, resolvedAt: Int64,
        policy: DeliveryPolicy
    ) -> DryRunOutcome {
        if delivery.state == .skipped {
            return .skip(delivery.reason ?? DeliveryPolicy.SkipReason.unregistered.rawValue)
        }
        var at = max(delivery.notBefore, resolvedAt)
        var deferred = false
        // A deferral holds an ad until 08:00 local, when it is decided again; that is not night, so one suffices.
        for _ in 0..<2 {
            switch policy.decide(
                delivery, of: message, installation: installation, now: Date(millisecondsSince1970: at))
            {
            case .skip(let reason): return .skip(reason.rawValue)
            case .send: return .send(at: at, deferred: deferred)
            case .deferUntil(let morning):
                at = morning.millisecondsSince1970
                deferred = true
            }
        }
        return .skip(DeliveryPolicy.SkipReason.night.rawValue)
    }
}
