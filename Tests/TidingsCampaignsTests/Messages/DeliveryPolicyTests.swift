import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsStore

@testable import TidingsCampaigns

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

    func message(
        type: MessageRecord.MessageType = .notification, kind: MessageKind = .alert, expiresAt: Int64? = nil,
        night: MessageRecord.NightPolicy = .skip
    ) -> MessageRecord {
        MessageRecord(
            id: "m", appID: "app", kind: kind, messageType: type, topic: "t", payload: [], priority: 10,
            expiresAt: expiresAt, nightPolicy: night, createdAt: 0)
    }

    func decision(
        _ installation: Installation?, type: MessageRecord.MessageType = .notification, kind: MessageKind = .alert,
        at now: Date = noonUTC, policy: DeliveryPolicy = .init(), targetUserID: String? = nil,
        expiresAt: Int64? = nil, night: MessageRecord.NightPolicy = .skip
    ) -> DeliveryPolicy.Decision {
        let delivery = MessageDelivery(
            messageID: "m", appID: "app", installationID: "i", token: "", targetUserID: targetUserID)
        return policy.decide(
            delivery, of: message(type: type, kind: kind, expiresAt: expiresAt, night: night),
            installation: installation, now: now)
    }

    func reason(
        _ installation: Installation?, type: MessageRecord.MessageType = .notification, kind: MessageKind = .alert,
        at now: Date = noonUTC, policy: DeliveryPolicy = .init()
    ) -> String? {
        switch decision(installation, type: type, kind: kind, at: now, policy: policy) {
        case .skip(let reason): reason.rawValue
        case .send, .deferUntil: nil
        }
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
        #expect(reason(installation(notifications: false)) == "consent")
        #expect(reason(installation(notifications: nil)) == nil)
        #expect(reason(installation()) == nil)
    }

    @Test func requiredConsentMustBeAnExplicitYes() {
        let strict = DeliveryPolicy(requireNotificationConsent: true)
        #expect(reason(installation(notifications: nil), policy: strict) == "consent")
        #expect(reason(installation(notifications: false), policy: strict) == "consent")
        #expect(reason(installation(notifications: true), policy: strict) == nil)
    }

    @Test func adsNeedAdConsentAndAtNightNightConsent() {
        #expect(reason(installation(ads: nil), type: .ad) == "ad_consent")
        #expect(reason(installation(ads: false), type: .ad) == "ad_consent")
        // 21:00 in Tokyo: night.
        #expect(reason(installation(ads: true), type: .ad) == "night")
        #expect(reason(installation(ads: true, nightAds: true), type: .ad) == nil)
        // 20:59 in Tokyo: day.
        #expect(reason(installation(ads: true), type: .ad, at: Self.noonUTC.addingTimeInterval(-60)) == nil)
        // 08:00 in New York: day; 07:59: night.
        let newYork = installation(ads: true, timezone: "America/New_York")
        #expect(reason(newYork, type: .ad) == nil)
        #expect(reason(newYork, type: .ad, at: Self.noonUTC.addingTimeInterval(-60)) == "night")
        // No time zone: treated as night.
        #expect(reason(installation(ads: true, timezone: nil), type: .ad) == "night")
        // Notifications are not ads: no ad consent needed at night.
        #expect(reason(installation(ads: false)) == nil)
    }

    @Test func theCurrentTokenOfTheNeededKindIsUsed() {
        #expect(reason(installation(apns: nil)) == "no_token")
        #expect(reason(installation(), kind: .voip) == "no_token")
        #expect(decision(installation(voip: "bb"), kind: .voip) == .send(token: "bb", tokenType: .voip))
        #expect(decision(installation(apns: "cc")) == .send(token: "cc", tokenType: .apns))
        var fcmOnly = installation(apns: nil)
        fcmOnly.fcmToken = "fcm-1"
        #expect(decision(fcmOnly) == .send(token: "fcm-1", tokenType: .fcm))
    }

    @Test func anExpiredMessageOrAGoneInstallationIsSkipped() {
        let past = Self.noonUTC.millisecondsSince1970 - 1
        #expect(decision(installation(), expiresAt: past) == .skip(.expired))
        #expect(decision(installation(), expiresAt: past + 2) == .send(token: "aa", tokenType: .apns))
        #expect(decision(nil) == .skip(.unregistered))
        // Expiry is checked first: a gone installation of an expired message counts as expired.
        #expect(decision(nil, expiresAt: past) == .skip(.expired))
    }

    @Test func aUserTargetedDeliveryNeedsTheSameUserAtSendTime() {
        var loggedIn = installation()
        loggedIn.userID = "alice"
        #expect(decision(loggedIn, targetUserID: "alice") == .send(token: "aa", tokenType: .apns))
        var other = loggedIn
        other.userID = "bob"
        #expect(decision(other, targetUserID: "alice") == .skip(.userChanged))
        other.userID = nil
        #expect(decision(other, targetUserID: "alice") == .skip(.userChanged))
        // Not sent to users: whoever is logged in gets it.
        #expect(decision(other) == .send(token: "aa", tokenType: .apns))
    }

    @Test func aDeferredAdWaitsFor8InTheMorningLocalTime() throws {
        // 21:00 in Tokyo: the next 08:00 there is 23:00 UTC the same day.
        let ad = installation(ads: true)
        let held = decision(ad, type: .ad, night: .defer)
        #expect(held == .deferUntil(Self.noonUTC.addingTimeInterval(11 * 3600)))
        // Skipped when not asked to defer, and when the zone is unknown (its morning cannot be known).
        #expect(decision(ad, type: .ad) == .skip(.night))
        #expect(decision(installation(ads: true, timezone: nil), type: .ad, night: .defer) == .skip(.night))
        // Consent to night ads sends at once.
        #expect(
            decision(installation(ads: true, nightAds: true), type: .ad, night: .defer)
                == .send(token: "aa", tokenType: .apns))
    }

    @Test func uninstallChecksIgnoreConsentButNeedAToken() {
        #expect(
            decision(installation(notifications: false), kind: .uninstallCheck) == .send(token: "aa", tokenType: .apns))
        #expect(decision(installation(apns: nil), kind: .uninstallCheck) == .skip(.noToken))
    }

    @Test func theEnvironmentFilterIsAppliedWhenTheAudienceIsResolved() {
        func target(_ installation: Installation, _ environment: OutgoingPush.Environment?) -> String? {
            MessageDelivery.target(installation, messageID: "m", kind: .alert, environment: environment).reason
        }
        #expect(target(installation(environment: "sandbox"), .production) == "environment")
        #expect(target(installation(), .production) == nil)
        #expect(target(installation(environment: "sandbox"), .sandbox) == nil)
        #expect(target(installation(), nil) == nil)
    }
}
