import Foundation
import TidingsModel

/// When a message's deliveries become due: now, at one instant (`send_at`), or at a wall-clock time in each
/// installation's own time zone (`local_time`).
public enum CampaignSchedule: Sendable, Hashable {
    case now
    /// Unix milliseconds.
    case at(Int64)
    /// `time` in each installation's zone, else in `fallbackTimeZone`; with `sendPast`, zones where it has
    /// already passed when the audience is resolved are sent at once rather than skipped.
    case localTime(LocalDateTime, fallbackTimeZone: String?, sendPast: Bool)

    /// The farthest ahead a message may be scheduled.
    public static let maximumLead: TimeInterval = 90 * 24 * 3600
    /// The earliest and latest UTC offsets in use (UTC+14 in Kiribati, UTC−12 on Baker Island): a local
    /// time falls within this span of itself read as UTC.
    static let earliestOffset: TimeInterval = 14 * 3600
    static let latestOffset: TimeInterval = 12 * 3600

    /// Whether each installation has its own due time.
    public var isLocalTime: Bool {
        if case .localTime = self { return true }
        return false
    }

    /// When the audience is resolved: at the send time, or for a local time just before it comes anywhere.
    public func resolveAt(now: Date) -> Date {
        switch self {
        case .now: now
        case .at(let milliseconds): max(now, Date(millisecondsSince1970: milliseconds))
        case .localTime(let time, _, _):
            max(now, time.asUTC.addingTimeInterval(-Self.earliestOffset - 3600))
        }
    }

    /// The last instant any delivery can become due: what the message's expiry counts from. A local-time
    /// delivery's own expiry counts from its own due time (``MessageDelivery/expiresAt``), so this is their bound.
    func latestDue(now: Date) -> Date {
        switch self {
        case .now: now
        case .at(let milliseconds): max(now, Date(millisecondsSince1970: milliseconds))
        case .localTime(let time, _, _): max(now, time.asUTC.addingTimeInterval(Self.latestOffset))
        }
    }

    /// When one installation's delivery is due, decided as its audience is resolved at `now`.
    enum Due: Equatable {
        /// Unix milliseconds (`now` or earlier means at once).
        case at(Int64)
        case skip(ResolutionSkipReason)
    }

    /// The due time of an installation in `timeZone` (an IANA identifier, nil or unknown when not known).
    func due(timeZone: String?, now: Date) -> Due {
        switch self {
        case .now: return .at(0)
        case .at(let milliseconds): return .at(milliseconds)
        case .localTime(let time, let fallback, let sendPast):
            guard let instant = time.instant(in: timeZone) ?? time.instant(in: fallback) else {
                return .skip(.unknownTimeZone)
            }
            if instant < now {
                return sendPast ? .at(now.millisecondsSince1970) : .skip(.pastLocalTime)
            }
            return .at(instant.millisecondsSince1970)
        }
    }
}
