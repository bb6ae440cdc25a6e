import Foundation
import Testing
import TidingsModel

/// Every example payload in the seeds decodes to exactly the canonical value the seeds describe.
@Suite struct SeedPayloadTests {
    @Test func moEngageFullPayloadFromSeeds000And001() throws {
        let payload = try decodePayload(SeedFixtures.moEngageFullPayload)
        let expected = PushPayload(
            dialect: .moengage, messageID: "55f2ba15a4ab4104a287bf88", campaignID: "55f2ba15a4ab4104a287bf88",
            appID: "DAO6UGZ73D9RTK8B5W96TPYN_DEBUG",
            alert: PushAlert(title: "Notification Title", subtitle: "Notification Subtitle", body: "Notification Body"),
            sound: .default, category: "INVITE_CATEGORY", badge: .increment(1), contentAvailable: true,
            mutableContent: true, isInternal: true, defaultAction: .deepLink(url: "moeapp://screen/settings"),
            media: PushMedia(
                source: .remote(url: "https://image.moengage.com/testImg.png"), kind: .image, fileExtension: "png",
                mimeType: "image/png"),
            coupon: "APP200", inbox: InboxPolicy(expiresAt: Date(timeIntervalSince1970: 1_571_905_058)),
            data: ["key1": "val1", "key2": "val2"],
            unrecognized: [
                "moengage": ["moe_campaign_name": "Campaign Name", "webUrl": "https://google.com"],
                "app_extra": ["screenName": "Screen Name"],
            ])
        #expect(payload == expected)
        // The seed's example carries `silentPush: 1`, which makes it MoEngage's internal push.
        #expect(payload.kind == .internal)
    }

    @Test func moEngageUninstallSilentPushFromSeed000() throws {
        let payload = try decodePayload(SeedFixtures.moEngageUninstallSilentPush)
        #expect(payload == PushPayload(dialect: .moengage, contentAvailable: true, isInternal: true))
        #expect(payload.delivery == .background)
        #expect(payload.kind == .internal)
    }

    @Test func treasureDataDataPayloadFromSeed002() throws {
        let payload = try decodePayload(SeedFixtures.treasureDataDataPayload)
        let expected = PushPayload(
            dialect: .treasuredata, campaignID: "cmp_20251214_promo",
            alert: PushAlert(title: "Special Offer!", body: "Get 20% off your next purchase"), category: "default",
            contentAvailable: true, defaultAction: .web(url: "https://example.com/promo", inApp: true),
            media: PushMedia(
                source: .remote(url: "https://cdn.example.com/banner.png"), kind: .image, fileExtension: "png",
                mimeType: "image/png"))
        #expect(payload == expected)
        #expect(payload.delivery == .alertAndBackground)
    }

    @Test func treasureDataSimulatorTestPayloadFromSeed002() throws {
        let payload = try decodePayload(SeedFixtures.treasureDataSimulatorTestPayload)
        let expected = PushPayload(
            dialect: .treasuredata, messageID: "test_001", campaignID: "test_campaign",
            alert: PushAlert(title: "Test Notification", body: "This is a test message"), sound: .default,
            badge: .set(1), defaultAction: .deepLink(url: "myapp://test"),
            unrecognized: ["Simulator Target Bundle": "com.example.myapp"])
        #expect(payload == expected)
    }

    @Test func treasureDataSimulatorTestPayloadWithImageFromSeed002() throws {
        let payload = try decodePayload(SeedFixtures.treasureDataSimulatorTestPayloadWithImage)
        #expect(payload.dialect == .treasuredata)
        #expect(payload.alert == PushAlert(title: "テスト通知", body: "これはテストメッセージです"))
        #expect(
            payload.media
                == PushMedia(
                    source: .remote(url: "https://example.com/image.jpg"), kind: .image, fileExtension: "jpg",
                    mimeType: "image/jpeg"))
        #expect(payload.defaultAction == .deepLink(url: "myapp://test"))
        #expect(payload.data.isEmpty)
    }

    @Test func nhnCloudRichMessageFromSeed003() throws {
        let payload = try decodePayload(SeedFixtures.nhnCloudRichMessage)
        let sent = try #require(LenientValue.iso8601("2024-05-01T03:00:00Z"))
        let expected = PushPayload(
            dialect: .nhncloud, messageID: "9007199254740993", campaignID: "9007199254740993", sentAt: sent,
            alert: PushAlert(title: "セール", body: "本日限り"), sound: .default, badge: .set(3), mutableContent: true,
            buttons: [
                PushButton(id: "nhn_button1", title: "開く", action: .openApp),
                PushButton(id: "nhn_button2", title: "詳細", action: .web(url: "https://example.com/sale", inApp: false)),
                PushButton(id: "nhn_button3", title: "返信", action: .reply(placeholder: "メッセージを入力", submitTitle: "送信")),
            ],
            media: PushMedia(
                source: .remote(url: "https://cdn.example.com/sale.gif"), kind: .gif, fileExtension: "gif",
                mimeType: "image/gif"),
            data: ["orderId": "A-1001"],
            unrecognized: ["messageDeliveryReceipt": true, "richMessage": ["media": ["expandable": true]]])
        #expect(payload == expected)
    }

    @Test func brazeBackgroundPushFromSeed004() throws {
        let payload = try decodePayload(SeedFixtures.brazeBackgroundPush)
        #expect(
            payload
                == PushPayload(
                    dialect: .braze, messageID: "c2VuZC0x", campaignID: "c2VuZC0x", contentAvailable: true,
                    data: ["refresh": "inbox"]))
        #expect(payload.kind == .background)
    }

    @Test func brazeUninstallTrackingFromReference() throws {
        let payload = try decodePayload(SeedFixtures.brazeUninstallTracking)
        #expect(payload.dialect == .braze)
        #expect(payload.isInternal)
        #expect(payload.kind == .internal)
        #expect(payload.unrecognized == ["appboy_uninstall_tracking": true])
        #expect(payload.data.isEmpty)
    }
}
