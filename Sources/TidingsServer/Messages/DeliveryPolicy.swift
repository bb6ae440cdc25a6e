import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// Decides, per installation, whether a message goes out and to which token, or why it is skipped.
///
/// In order: the environment filter (`environment`), notification consent (`no_consent`), for ads the ad
/// consent (`no_ad_consent`) and, between 21:00 and 08:00 in the installation's own time zone, the night-time
/// ad consent (`night_ad_consent`), and last a token of the needed kind (`no_token`). Uninstall checks skip
/// only by environment and token.
///
/// - By default only an explicit notification consent of `false` skips: an app that does not manage
///   consent relies on the OS permission. With ``requireNotificationConsent`` (NHN Cloud's rule, for apps
///   that collect consent) it must be an explicit `true`.
/// - Ad consents must always be an explicit `true`.
/// - An installation without a valid IANA time zone is treated as being in its night, so an ad reaches it
///   only with night-time ad consent: unknown local time never lets an ad through at night.
public struct DeliveryPolicy: Sendable {
    /// Skip reasons, as counted in `GET /v1/messages/{id}`.
    public enum SkipReason: String, Sendable, Hashable, CaseIterable {
        case environment
        case noConsent = "no_consent"
        case noAdConsent = "no_ad_consent"
        case nightAdConsent = "night_ad_consent"
        case noToken = "no_token"
        case unknownInstallation = "unknown_installation"
    }

    /// Night starts at this local hour (inclusive)...
    public static let nightStartHour = 21
    /// ...and ends at this one (exclusive).
    public static let nightEndHour = 8

    public var requireNotificationConsent: Bool

    public init(requireNotificationConsent: Bool = false) {
        self.requireNotificationConsent = requireNotificationConsent
    }

    /// The delivery row of `installation` for a message sent at `now`: pending with its token, or skipped.
    public func delivery(
        for installation: Installation, messageID: String, kind: MessageKind,
        messageType: MessageRecord.MessageType, environment: OutgoingPush.Environment?, now: Date
    ) -> MessageDelivery {
        let installationEnvironment = installation.environment ?? OutgoingPush.Environment.production.rawValue
        var delivery = MessageDelivery(
            messageID: messageID, appID: installation.appID, installationID: installation.installationID, token: "",
            environment: installationEnvironment)
        let token: (String, TokenType)? =
            switch kind {
            case .voip: installation.voipToken.map { ($0, .voip) }
            case .alert, .background, .uninstallCheck:
                installation.apnsToken.map { ($0, .apns) } ?? installation.fcmToken.map { ($0, .fcm) }
            }
        if let token {
            delivery.token = token.0
            delivery.tokenType = token.1
        }
        // An uninstall check shows nothing and records nothing on the device, so consent does not apply.
        let reason =
            kind == .uninstallCheck
            ? skipReason(installation, hasToken: token != nil, environment: environment)
            : skipReason(
                installation, hasToken: token != nil, messageType: messageType, environment: environment, now: now)
        if let reason {
            delivery.state = .skipped
            delivery.reason = reason.rawValue
        }
        return delivery
    }

    /// Why `installation` is skipped, or nil when it gets the message.
    public func skipReason(
        _ installation: Installation, hasToken: Bool, messageType: MessageRecord.MessageType,
        environment: OutgoingPush.Environment?, now: Date
    ) -> SkipReason? {
        if let environment, (installation.environment ?? "production") != environment.rawValue {
            return .environment
        }
        let consent = installation.consents.notifications
        if consent == false || (requireNotificationConsent && consent != true) { return .noConsent }
        if messageType == .ad {
            guard installation.consents.ads == true else { return .noAdConsent }
            if Self.isNight(at: now, timeZone: installation.timezone) && installation.consents.nightAds != true {
                return .nightAdConsent
            }
        }
        return hasToken ? nil : .noToken
    }

    /// Why `installation` is skipped by a message that consent does not govern (an uninstall check): only
    /// the environment filter and a missing token.
    public func skipReason(
        _ installation: Installation, hasToken: Bool, environment: OutgoingPush.Environment?
    ) -> SkipReason? {
        if let environment, (installation.environment ?? "production") != environment.rawValue {
            return .environment
        }
        return hasToken ? nil : .noToken
    }

    /// Whether `now` is between 21:00 and 08:00 in `timeZone` (an IANA identifier); true when it is unknown.
    public static func isNight(at now: Date, timeZone identifier: String?) -> Bool {
        guard let identifier, let timeZone = TimeZone(identifier: identifier) else { return true }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let hour = calendar.component(.hour, from: now)
        return hour >= nightStartHour || hour < nightEndHour
    }
}
