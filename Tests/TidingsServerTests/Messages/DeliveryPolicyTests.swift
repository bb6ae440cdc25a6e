import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore

@Suite struct DeliveryPolicyTests {
    /// 2026-06-01 12:00 UTC: 21:00 in Tokyo (UTC+9), 08:00 in New York (UTC-4), 13:00 in London (BST).
    static let noonUTC = Date(timeIntervalSince1970: 1_780_315_200)

    func installation(
        notifications: Bool? = true, ads: Bool? = nil, nightAds: Bool? = nil, timezone: String? = "Asia/Tokyo",
        apns: String? = "aa", voip: String? = nil, environment: String? = nil
    ) -> Installation {
        Installation(
            appID: "app", installationID: "i", apnsToken: apns, voipToken: voip, environment: environment,
            consents: .init(notifications: notifications, ads: ads, nightAds: nightAds), timezone: timezone,
            createdAt: 0, updatedAt: 0)
    }

    func reason(
        _ installation: Installation, type: MessageRecord.MessageType = .notification, kind: MessageKind = .alert,
        environment: OutgoingPush.Environment? = nil, at now: Date = noonUTC, policy: DeliveryPolicy = .init()
    ) -> String? {
        policy.delivery(
            for: installation, messageID: "m", kind: kind, messageType: type, environment: environment, now: now
        ).reason
    }

    @Test(arguments: [
        // Tokyo: 12:00 UTC is 21:00, the first night hour; 11:59 UTC is 20:59.
        ("Asia/Tokyo", 0.0, true), ("Asia/Tokyo", -60.0, false),
        // New York (EDT): 12:00 UTC is 08:00, the first day hour; 11:59 UTC is 07:59.
        ("America/New_York", 0.0, false), ("America/New_York", -60.0, true),
        ("Europe/London", 0.0, false),
        // Unknown or invalid zones count as night.
        ("Mars/Olympus", 0.0, true),
    ])
    func nightIsFrom21To8Local(zone: String, offset: Double, night: Bool) {
        #expect(DeliveryPolicy.isNight(at: Self.noonUTC.addingTimeInterval(offset), timeZone: zone) == night)
    }

    @Test func anExplicitRefusalSkipsAndAMissingConsentDoesNotByDefault() {
        #expect(reason(installation(notifications: false)) == "no_consent")
        #expect(reason(installation(notifications: nil)) == nil)
        #expect(reason(installation()) == nil)
    }

    @Test func requiredConsentMustBeAnExplicitYes() {
        let strict = DeliveryPolicy(requireNotificationConsent: true)
        #expect(reason(installation(notifications: nil), policy: strict) == "no_consent")
        #expect(reason(installation(notifications: false), policy: strict) == "no_consent")
        #expect(reason(installation(notifications: true), policy: strict) == nil)
    }

    @Test func adsNeedAdConsentAndAtNightNightConsent() {
        #expect(reason(installation(ads: nil), type: .ad) == "no_ad_consent")
        #expect(reason(installation(ads: false), type: .ad) == "no_ad_consent")
        // 21:00 in Tokyo: night.
        #expect(reason(installation(ads: true), type: .ad) == "night_ad_consent")
        #expect(reason(installation(ads: true, nightAds: true), type: .ad) == nil)
        // 20:59 in Tokyo: day.
        #expect(reason(installation(ads: true), type: .ad, at: Self.noonUTC.addingTimeInterval(-60)) == nil)
        // 08:00 in New York: day; 07:59: night.
        let newYork = installation(ads: true, timezone: "America/New_York")
        #expect(reason(newYork, type: .ad) == nil)
        #expect(reason(newYork, type: .ad, at: Self.noonUTC.addingTimeInterval(-60)) == "night_ad_consent")
        // No time zone: treated as night.
        #expect(reason(installation(ads: true, timezone: nil), type: .ad) == "night_ad_consent")
        // Notifications are not ads: no ad consent needed at night.
        #expect(reason(installation(ads: false)) == nil)
    }

    @Test func tokensAndEnvironment() {
        #expect(reason(installation(apns: nil)) == "no_token")
        #expect(reason(installation(), kind: .voip) == "no_token")
        let voip = DeliveryPolicy().delivery(
            for: installation(voip: "bb"), messageID: "m", kind: .voip, messageType: .notification,
            environment: nil, now: Self.noonUTC)
        #expect(voip.token == "bb" && voip.tokenType == .voip && voip.state == .pending)
        #expect(reason(installation(environment: "sandbox"), environment: .production) == "environment")
        #expect(reason(installation(), environment: .production) == nil)
        #expect(reason(installation(environment: "sandbox"), environment: .sandbox) == nil)
    }
}
