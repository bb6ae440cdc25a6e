import Foundation
import Testing
import TidingsModel

/// `tidings payload convert`'s model: a payload of any dialect in the native dialect, what was left out and
/// why, and the round trip.
@Suite struct PayloadConversionTests {
    static let seedPayloads = [
        SeedFixtures.moEngageFullPayload, SeedFixtures.moEngageUninstallSilentPush,
        SeedFixtures.treasureDataDataPayload, SeedFixtures.treasureDataSimulatorTestPayload,
        SeedFixtures.treasureDataSimulatorTestPayloadWithImage, SeedFixtures.nhnCloudRichMessage,
        SeedFixtures.brazeBackgroundPush, SeedFixtures.brazeUninstallTracking,
    ]

    static func exampleBytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: ExamplePayloadTests.directory.appendingPathComponent(name)))
    }

    /// Every example and seed payload converts to a native payload that keeps the source's content, and
    /// converting that again changes nothing (the native output is a fixed point).
    @Test func everyVendorPayloadConvertsAndTheNativeOutputIsAFixedPoint() throws {
        let sources =
            try ExamplePayloadTests.expected.keys.sorted().map(Self.exampleBytes)
            + Self.seedPayloads.map { Array($0.utf8) }
        for bytes in sources {
            let conversion = try PayloadConversion.convert(bytes)
            #expect(PushPayload.detectDialect(conversion.native) == .native)
            #expect(conversion.roundTripChanges.isEmpty, "\(conversion.roundTripChanges)")
            var expected = conversion.source
            expected.dialect = .native
            expected.unrecognized = [:]
            #expect(conversion.converted == expected)

            let again = try PayloadConversion(conversion.native)
            #expect(again.isLossless, "\(again.notCarried) \(again.roundTripChanges)")
            #expect(again.native == conversion.native)
        }
    }

    @Test func randomValidNativePayloadsConvertLosslessly() throws {
        var generator = PayloadGenerator(seed: 7)
        for index in 0..<200 {
            var payload = generator.validPayload()
            payload.unrecognized = [:]
            let conversion = try PayloadConversion(payload.nativeJSON)
            #expect(conversion.isLossless, "payload \(index): \(conversion.roundTripChanges)")
            #expect(conversion.converted == payload)
            if !conversion.isLossless { return }
        }
    }

    @Test func leftoversAreListedAtTheirPathsWithTheirReason() throws {
        let fcm = try PayloadConversion.convert(Self.exampleBytes("fcm.json"))
        #expect(fcm.notCarried.map(\.path) == ["google.c.a.e", "google.c.sender.id"])
        #expect(fcm.notCarried.allSatisfy { $0.reason == .transport })

        let braze = try PayloadConversion.convert(Array(SeedFixtures.brazeUninstallTracking.utf8))
        #expect(braze.notCarried.contains { $0.reason == .systemPushMarker })
        #expect(braze.converted.isInternal)
        #expect(braze.native.objectValue?["tidings"]?.objectValue?["internal"] == .bool(true))

        let moengage = try PayloadConversion.convert(Array(SeedFixtures.moEngageFullPayload.utf8))
        let paths = moengage.notCarried.map(\.path)
        #expect(paths.contains("moengage.moe_campaign_name"))
        #expect(paths == paths.sorted())
        let name = try #require(moengage.notCarried.first { $0.path == "moengage.moe_campaign_name" })
        #expect(name.reason == .noEquivalent && name.value == .string("Campaign Name"))
        // Nothing listed is in the native payload, and nothing kept there is listed.
        let text = try moengage.native.serializedString()
        #expect(!text.contains("moe_campaign_name") && !text.contains("\"moengage\""))
    }

    @Test func aNestedLeftoverIsOneEntryPerValue() throws {
        let conversion = try PayloadConversion(
            jsonValue(#"{"aps": {"alert": "Hi", "x-future": {"a": 1, "b": [2]}}, "ab": {"c": "c1", "ab_cat": {}}}"#))
        #expect(conversion.notCarried.map(\.path) == ["ab.ab_cat", "aps.x-future.a", "aps.x-future.b"])
        #expect(conversion.notCarried.map(\.value) == [.object([:]), .integer(1), .array([.integer(2)])])
        #expect(!conversion.isLossless)
    }

    @Test func aForcedDialectReadsThePayloadItsWay() throws {
        let json = try jsonValue(#"{"aps": {"alert": "Hi"}, "ab": {"c": "braze-1"}, "moengage": {"cid": "moe-1"}}"#)
        let detected = try PayloadConversion(json)
        #expect(detected.sourceDialect == .braze && detected.converted.campaignID == "braze-1")

        let forced = try PayloadConversion(json, from: .moengage)
        #expect(forced.sourceDialect == .moengage && forced.detectedDialect == .braze)
        #expect(forced.converted.messageID == "moe-1")
        // Braze's dictionary is only the app's data to MoEngage's reader.
        #expect(forced.converted.data["ab"] == .object(["c": "braze-1"]))
    }

    @Test func whatTheNativeFormatStoresDifferentlyIsListed() throws {
        let conversion = try PayloadConversion(
            jsonValue(#"{"aps": {"alert": "Hi"}, "tidings": {"v": 1, "sent": 1767225600000.5}}"#))
        #expect(conversion.notCarried.isEmpty)
        let change = try #require(conversion.roundTripChanges.first)
        #expect(conversion.roundTripChanges.count == 1 && change.field == "sent_at")
        #expect(change.before == .double(1_767_225_600.0005) && change.after == .double(1_767_225_600.001))
        #expect(!conversion.isLossless)
    }

    /// Found by the fuzzer: NHN Cloud's send time in the year 1013 has no native form. It is left out and named
    /// by the round trip, and the native payload converts again without loss.
    @Test func aValueTheNativeFormatCannotHoldIsLeftOutAndNamed() throws {
        let conversion = try PayloadConversion(
            jsonValue(
                #"{"aps": {"alert": "Hi"}, "messageDeliveryReceiptData": {"messageId": 1, "sentDateTime": "1013-01-01T09:00:00.000+09:00"}}"#
            ))
        #expect(conversion.source.sentAt != nil && conversion.converted.sentAt == nil)
        #expect(conversion.roundTripChanges.map(\.field) == ["sent_at"])
        #expect(conversion.native["tidings"]?["sent"] == nil)
        let again = try PayloadConversion(conversion.native)
        #expect(again.isLossless && again.native == conversion.native)
    }

    @Test func unreadableInputIsATypedError() {
        #expect(throws: PayloadDecodingError.self) { try PayloadConversion.convert(Array("[1]".utf8)) }
        do {
            _ = try PayloadConversion.convert(Array("{\"aps\": ".utf8))
            Issue.record("malformed JSON converted")
        } catch {
            #expect(error.code == .malformedJSON)
        }
        do {
            _ = try PayloadConversion.convert([])
            Issue.record("empty input converted")
        } catch {
            #expect(error.code == .empty)
        }
    }
}
