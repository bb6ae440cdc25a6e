import Foundation
import Testing
import TidingsModel

/// The example payloads shipped in Examples/payloads decode to the dialect and classification their names say.
@Suite struct ExamplePayloadTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/payloads")

    static let expected: [String: (dialect: PushDialect, kind: PushKind)] = [
        "native.json": (.native, .alert),
        "moengage.json": (.moengage, .alert),
        "moengage-silent.json": (.moengage, .internal),
        "braze.json": (.braze, .alert),
        "braze-uninstall.json": (.braze, .internal),
        "nhncloud.json": (.nhncloud, .alert),
        "treasuredata.json": (.treasuredata, .alert),
        "treasuredata-test.json": (.treasuredata, .alert),
        "fcm.json": (.fcm, .alert),
        "apns.json": (.apns, .alert),
    ]

    static func load(_ name: String) throws -> PushPayload {
        let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
        return try PushPayload.decode(Array(bytes))
    }

    @Test(arguments: expected.keys.sorted())
    func decodesToItsDialect(name: String) throws {
        let payload = try Self.load(name)
        let expectation = try #require(Self.expected[name])
        #expect(payload.dialect == expectation.dialect)
        #expect(payload.kind == expectation.kind)
    }

    @Test func everyExampleFileIsChecked() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".json") }
        #expect(Set(files) == Set(Self.expected.keys))
    }

    @Test func vendorExamplesCarryIdsAndContent() throws {
        let native = try Self.load("native.json")
        #expect(native.messageID == "msg_01HZX3K9V7Q2" && native.badge == .increment(1) && native.buttons.count == 3)
        #expect(native.unrecognized.isEmpty)
        let moengage = try Self.load("moengage.json")
        #expect(moengage.defaultAction == .screen(name: "SaleScreen", parameters: ["sale_id": "spring", "tab": "all"]))
        #expect(moengage.campaignID == "6601f0c2a4ab4104a287bf01" && moengage.coupon == "SPRING20")
        let braze = try Self.load("braze.json")
        #expect(braze.defaultAction == .web(url: "https://watch.example.com/s2/e5", inApp: true))
        #expect(braze.media?.kind == .video && braze.data == ["show_id": "s2e5"])
        let nhn = try Self.load("nhncloud.json")
        #expect(nhn.messageID == "4417112233445566" && nhn.buttons.count == 3 && nhn.media?.kind == .gif)
        let td = try Self.load("treasuredata.json")
        #expect(td.campaignID == "cmp_20260101_restock" && td.unrecognized.isEmpty && td.data.isEmpty)
        let fcm = try Self.load("fcm.json")
        #expect(fcm.messageID == "0:1767225600000000%31bd1c9631bd1c96" && fcm.data == ["flight": "NH203"])
        let apns = try Self.load("apns.json")
        #expect(apns.messageID == nil && apns.relevanceScore == 0.8 && apns.data == ["booking_id": "B-2231"])
    }

    @Test func theNativeExampleIsWhatTheEncoderWrites() throws {
        let native = try Self.load("native.json")
        let bytes = try Data(contentsOf: Self.directory.appendingPathComponent("native.json"))
        let json = try JSONDecoder().decode(JSONValue.self, from: bytes)
        #expect(native.nativeJSON == json)
    }
}
