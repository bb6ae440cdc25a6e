import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// Decides, when a delivery is claimed for sending, whether it goes out now, to which token, waits, or is
/// skipped, against the installation as it is at that moment.
///
/// Nothing that can change after a message is accepted is decided at acceptance: consent withdrawn, a person's
/// night starting, the message expiring, a token rotated, the device logged in as someone else. Each retry is
/// decided afresh.
///
/// In order: the delivery's expiry (`expired`), the installation gone (`unregistered`), a user-targeted
/// installation now belonging to someone else (`user_changed`), notification consent (`consent`), for ads the ad
/// consent (`ad_consent`) and, between 21:00 and 08:00 in the installation's own time zone, the night-time ad
/// consent (`night`: skipped, or held until 08:00 when the message asks for `night: "defer"`), and last a token
/// of the needed kind (`no_token`). Uninstall checks skip only by expiry and token. The fan-out worker adds one
/// check the policy cannot make alone: a local-time message's audience, read again (``AudienceRecheck``,
/// `left_audience`).
///
/// - By default only an explicit notification consent of `false` skips: an app that does not manage
///   consent relies on the OS permission. With ``requireNotificationConsent`` (NHN Cloud's rule, for apps
///   that collect consent) it must be an explicit `true`.
/// - Ad consents must always be an explicit `true`.
/// - An installation without a valid IANA time zone is treated as being in its night, so an ad reaches it
///   only with night-time ad consent: unknown local time never lets an ad through at night. Such an ad is
///   skipped even when the message asks to defer, since its morning cannot be known.
public struct DeliveryPolicy: Sendable, Equatable {
    /// Skip reasons, as counted in `GET /v1/messages/{id}` under `skipped_by_reason`.
    public enum SkipReason: String, Sendable, Hashable, CaseIterable {
        /// The message asked for the other APNs environment (decided at acceptance).
        case environment
        /// The message named an installation id the app does not have (decided at acceptance).
        case unknownInstallation = "unknown_installation"
        /// The message expired before this delivery's turn came (a local-time delivery: its own due time plus the
        /// time to live passed).
        case expired
        /// A local-time message to an audience (tags or an audience expression): the installation no longer
        /// matched it when its own due time came.
        case leftAudience = "left_audience"
        /// The installation no longer exists.
        case unregistered
        /// The message was sent to a user, and the installation now belongs to another user or none.
        case userChanged = "user_changed"
        /// No notification consent.
        case consent
        /// An ad, without ad consent.
        case adConsent = "ad_consent"
        /// An ad in the installation's night (21:00–08:00 local), without night-time ad consent.
        case night
        /// The installation has no token of the kind the message needs.
        case noToken = "no_token"
        /// The app's frequency cap: the installation already had its marketing pushes of the window (decided
        /// when the delivery is claimed to be sent; transactional messages are exempt).
        case frequencyCap = "frequency_cap"
    }

    /// What to do with one claimed delivery.
    public enum Decision: Sendable, Hashable {
        /// Send to this token, the installation's current one.
        case send(token: String, tokenType: TokenType)
        case skip(SkipReason)
        /// Hold until this instant (an ad waiting for 08:00 local time), without using an attempt.
        case deferUntil(Date)

        public var isSkip: Bool {
            if case .skip = self { return true }
            return false
        }
    }

    /// Night starts at this local hour (inclusive)...
    public static let nightStartHour = 21
    /// ...and ends at this one (exclusive).
    public static let nightEndHour = 8

    public var requireNotificationConsent: Bool

    public init(requireNotificationConsent: Bool = false) {
        self.requireNotificationConsent = requireNotificationConsent
    }

    /// The decision for `delivery` of `message`, with `installation` as it is `now` (nil when it is gone).
    public func decide(
        _ delivery: MessageDelivery, of message: MessageRecord, installation: Installation?, now: Date
    ) -> Decision {
        if let expiresAt = Self.expiry(of: delivery, message), expiresAt <= now.millisecondsSince1970 {
            return .skip(.expired)
        }
        guard let installation else { return .skip(.unregistered) }
        let token = Self.token(for: message.kind, of: installation)
        // An uninstall check shows nothing and records nothing on the device, so consent does not apply.
        if message.kind == .uninstallCheck {
            return token.map { .send(token: $0.token, tokenType: $0.type) } ?? .skip(.noToken)
        }
        if let target = delivery.targetUserID, installation.userID != target { return .skip(.userChanged) }
        let consent = installation.consents.notifications
        if consent == false || (requireNotificationConsent && consent != true) { return .skip(.consent) }
        if message.messageType == .ad {
            guard installation.consents.ads == true else { return .skip(.adConsent) }
            if Self.isNight(at: now, timeZone: installation.timezone) && installation.consents.nightAds != true {
                guard message.nightPolicy == .defer, let morning = Self.morning(after: now, in: installation.timezone)
                else { return .skip(.night) }
                return .deferUntil(morning)
            }
        }
        return token.map { .send(token: $0.token, tokenType: $0.type) } ?? .skip(.noToken)
    }

    /// When `delivery` expires, unix milliseconds: its own expiry (a local-time delivery's due time plus the time
    /// to live), else the message's; nil when it does not.
    public static func expiry(of delivery: MessageDelivery, _ message: MessageRecord) -> Int64? {
        delivery.expiresAt ?? message.expiresAt
    }

    /// The token a message of `kind` goes to: the VoIP token for PushKit, else the APNs token, else the FCM one.
    public static func token(for kind: MessageKind, of installation: Installation) -> (token: String, type: TokenType)?
    {
        switch kind {
        case .voip: installation.voipToken.map { ($0, .voip) }
        case .alert, .background, .uninstallCheck:
            installation.apnsToken.map { ($0, .apns) } ?? installation.fcmToken.map { ($0, .fcm) }
        }
    }

    /// Whether `now` is between 21:00 and 08:00 in `timeZone` (an IANA identifier); true when it is unknown.
    public static func isNight(at now: Date, timeZone identifier: String?) -> Bool {
        guard let calendar = calendar(identifier) else { return true }
        let hour = calendar.component(.hour, from: now)
        return hour >= nightStartHour || hour < nightEndHour
    }

    /// The next 08:00 in `timeZone` after `now`; nil when the zone is unknown.
    public static func morning(after now: Date, in identifier: String?) -> Date? {
        guard let calendar = calendar(identifier) else { return nil }
        return calendar.nextDate(
            after: now, matching: DateComponents(hour: nightEndHour, minute: 0, second: 0),
            matchingPolicy: .nextTime)
    }

    /// Calendars by time-zone identifier: `TimeZone(identifier:)` reads the zone file on Linux every time, and
    /// an ad campaign asks once per delivery. Bounded by the IANA database (unknown identifiers are not kept).
    private static let calendars = LockedBox([String: Calendar]())

    private static func calendar(_ identifier: String?) -> Calendar? {
        guard let identifier else { return nil }
        if let cached = calendars.withLock({ $0[identifier] }) { return cached }
        guard let timeZone = TimeZone(identifier: identifier) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendars.withLock { $0[identifier] = calendar }
        return calendar
    }
}
