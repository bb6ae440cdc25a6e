import Foundation
import Testing
import TidingsModel

/// `PushPayload(json: p.nativeJSON) == p` for every valid payload, and decoding never throws for objects.
@Suite struct NativeRoundTripTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomValidPayloadsSurviveTheNativeRoundTrip(seed: UInt64) throws {
        var generator = PayloadGenerator(seed: seed)
        for index in 0..<150 {
            let payload = generator.validPayload()
            let decoded = try PushPayload(json: payload.nativeJSON)
            #expect(decoded == payload, "seed \(seed) payload \(index): \(payload.nativeJSON)")
            if decoded != payload { return }
        }
    }

    @Test func randomValidPayloadsSurviveTheRoundTripThroughBytes() throws {
        var generator = PayloadGenerator(seed: 99)
        for index in 0..<200 {
            let payload = generator.validPayload()
            let bytes = try JSONEncoder().encode(payload.nativeJSON)
            let decoded = try PushPayload.decode(Array(bytes))
            #expect(decoded == payload, "payload \(index): \(String(decoding: bytes, as: UTF8.self))")
            if decoded != payload { return }
        }
    }

    @Test func vendorPayloadsConvertToNativeAndKeepTheirContent() throws {
        for fixture in [
            SeedFixtures.moEngageFullPayload, SeedFixtures.treasureDataDataPayload, SeedFixtures.nhnCloudRichMessage,
            SeedFixtures.treasureDataSimulatorTestPayload,
        ] {
            let vendor = try decodePayload(fixture)
            var native = try PushPayload(json: vendor.nativeJSON)
            #expect(native.dialect == .native)
            native.dialect = vendor.dialect
            // Vendor leftovers sit at top-level paths, which the native format reads as data.
            #expect(native.unrecognized.isEmpty || native.unrecognized.keys.allSatisfy { $0 == "aps" })
            native.unrecognized = vendor.unrecognized
            native.data = vendor.data
            #expect(native == vendor)
        }
    }

    @Test func absentFieldsAreOmittedAndFlagsWrittenOnlyWhenTrue() {
        let json = PushPayload().nativeJSON
        #expect(json == ["aps": [:], "tidings": ["v": 1]])
        let flagged = PushPayload(contentAvailable: true, mutableContent: true, isInternal: true).nativeJSON
        #expect(flagged["aps"] == ["content-available": 1, "mutable-content": 1])
        #expect(flagged["tidings"]?["internal"] == true)
    }

    @Test func encodingFollowsTheNativeFormat() {
        let payload = PushPayload(
            messageID: "m1", campaignID: "c1", appID: "app", sentAt: Date(millisecondsSince1970: 1_700_000_000_123),
            alert: PushAlert(body: "Hi"), sound: PushSound(name: "alarm.caf", isCritical: true, volume: 0.5),
            badge: .increment(2), defaultAction: .web(url: "https://example.com", inApp: true),
            buttons: [PushButton(id: "r", title: "Reply", action: .reply(placeholder: "Say", submitTitle: nil))],
            media: PushMedia(
                source: .bundled(name: "a.png"), kind: .image, fileExtension: "png", mimeType: "image/png"),
            coupon: "SAVE", inbox: InboxPolicy(expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            data: ["k": "v"], unrecognized: ["aps": ["stale-date": 1_800_000_000]])
        let expected: JSONValue = [
            "aps": [
                "alert": "Hi", "sound": ["name": "alarm.caf", "critical": 1, "volume": 0.5],
                "stale-date": 1_800_000_000,
            ],
            "tidings": [
                "v": 1, "id": "m1", "cid": "c1", "app": "app", "sent": 1_700_000_000_123,
                "badge": ["op": "increment", "by": 2],
                "action": ["type": "web", "url": "https://example.com", "in_app": true],
                "buttons": [["id": "r", "title": "Reply", "type": "reply", "placeholder": "Say"]],
                "media": ["resource": "a.png", "type": "image"],
                "coupon": "SAVE", "inbox": ["expires_at": 1_800_000_000], "data": ["k": "v"],
            ],
        ]
        #expect(payload.nativeJSON == expected)
    }

    @Test func setAndClearBadgesTravelInAPS() {
        #expect(PushPayload(badge: .set(5)).nativeJSON["aps"]?["badge"] == 5)
        #expect(PushPayload(badge: .clear).nativeJSON["aps"]?["badge"] == 0)
        #expect(PushPayload(badge: .none).nativeJSON["aps"]?["badge"] == nil)
    }

    @Test func unrecognizedNeverOverridesTheModel() {
        let payload = PushPayload(category: "real", unrecognized: ["aps": ["category": "stale", "x": 1]])
        #expect(payload.nativeJSON["aps"] == ["category": "real", "x": 1])
    }
}

/// Decoding is total over JSON objects and rejects everything else with a typed error.
@Suite struct PayloadDecodingRobustnessTests {
    @Test(arguments: [11, 12, 13] as [UInt64])
    func randomObjectsAlwaysDecode(seed: UInt64) throws {
        var generator = PayloadGenerator(seed: seed)
        let vendorKeys = [
            "aps", "tidings", "ab", "ab_uri", "moengage", "app_extra", "richMessage", "messageDeliveryReceiptData",
            "td_campaign_id", "campaign_id", "message_id", "gcm.message_id", "fcm_options", "appboy_uninstall_tracking",
        ]
        for _ in 0..<300 {
            var object = generator.object(depth: 3)
            // Vendor keys with random values, so every decoder sees garbage where it expects structure.
            for key in vendorKeys where generator.chance(0.3) {
                object[key] = generator.chance(0.5) ? .object(generator.object(depth: 2)) : generator.json(depth: 2)
            }
            let json = JSONValue.object(object)
            let payload = try PushPayload(json: json)
            #expect(payload.dialect == PushPayload.detectDialect(json))
        }
    }

    @Test(arguments: ["[]", "[{\"aps\": {}}]", "\"aps\"", "42", "1.5", "true", "null"])
    func nonObjectsThrowNotAnObject(text: String) throws {
        let error = #expect(throws: PayloadDecodingError.self) { try decodePayload(text) }
        #expect(error?.code == .notAnObject)
    }

    @Test(arguments: ["{", "{\"aps\": }", "nope"])
    func malformedBytesThrowMalformedJSON(text: String) {
        let error = #expect(throws: PayloadDecodingError.self) { try PushPayload.decode(Array(text.utf8)) }
        #expect(error?.code == .malformedJSON)
        #expect(error?.byteOffset != nil)
    }

    @Test func emptyBytesThrowEmpty() {
        let error = #expect(throws: PayloadDecodingError.self) { try PushPayload.decode([]) }
        #expect(error?.code == .empty)
    }
}
