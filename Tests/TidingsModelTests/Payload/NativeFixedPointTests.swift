import Foundation
import Testing
import TidingsModel

/// The native encoding settles after one round: a vendor payload's leftover keys stay at the top level
/// when it is first encoded natively, and read back as native they are the app's custom data; from then
/// on, decoding and encoding again gives the same JSON (the fuzzer checks the same for any input).
@Suite struct NativeFixedPointTests {
    static let examples: [String] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/payloads")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0).path }
    }()

    @Test func theExamplesAreFound() {
        #expect(Self.examples.count >= 10)
    }

    @Test(arguments: examples)
    func nativeEncodingOfAnExampleIsStable(path: String) throws {
        let payload = try PushPayload.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let native = try PushPayload(json: payload.nativeJSON).nativeJSON
        let again = try PushPayload(json: native)
        let first = String(decoding: try native.serialized(sortedKeys: true), as: UTF8.self)
        let second = String(decoding: try again.nativeJSON.serialized(sortedKeys: true), as: UTF8.self)
        #expect(first == second)
    }

    @Test func aBrazeUninstallPushStaysInternalAndKeepsItsKey() throws {
        let payload = try PushPayload.decode(
            Array(#"{"aps": {"content-available": 1}, "appboy_uninstall_tracking": true}"#.utf8))
        let native = try PushPayload(json: payload.nativeJSON)
        #expect(native.isInternal)
        #expect(native.kind == .internal)
        #expect(native.data["appboy_uninstall_tracking"] == true)
        #expect(try PushPayload(json: native.nativeJSON) == native)
    }
}

/// Reproducers the fuzzer found, kept so they stay fixed.
@Suite struct PayloadFuzzRegressionTests {
    @Test func aHugeInboxExpiryIsNotReadAndEncodingDoesNotTrap() throws {
        let text = #"{"aps":{"alert":"x"},"tidings":{"v":1,"inbox":{"expires_at":1767777777777777777777777777830400}}}"#
        let payload = try PushPayload.decode(Array(text.utf8))
        #expect(payload.inbox?.expiresAt == nil)
        let again = try PushPayload(json: payload.nativeJSON)
        #expect(again.nativeJSON == payload.nativeJSON)
    }

    @Test func datesFarOutSaturateInsteadOfTrapping() {
        #expect(Date(timeIntervalSince1970: 1e300).millisecondsSince1970 == .max)
        #expect(Date(timeIntervalSince1970: -1e300).millisecondsSince1970 == .min)
        #expect(Date(timeIntervalSince1970: .nan).millisecondsSince1970 == 0)
    }
}

extension PayloadFuzzRegressionTests {
    @Test func nativeSentIsAlwaysMillisecondsEvenWhenSmall() throws {
        let payload = try PushPayload(json: ["tidings": ["v": 1, "sent": 1_767_225]])
        #expect(payload.sentAt == Date(timeIntervalSince1970: 1_767.225))
        #expect(try PushPayload(json: payload.nativeJSON) == payload)
    }

    @Test func anFCMTimestampWithAFractionSettlesAfterOneRound() throws {
        let payload = try PushPayload(json: [
            "aps": ["alert": "x"], "gcm.message_id": "m", "google.c.a.ts": "1767.2256",
        ])
        let settled = try PushPayload(json: payload.nativeJSON)
        #expect(try PushPayload(json: settled.nativeJSON).nativeJSON == settled.nativeJSON)
    }

    @Test(arguments: [Int64(0), 1, 999, 1_767_225_600_123, 253_402_300_799_999])
    func millisecondsRoundTripThroughDate(_ milliseconds: Int64) {
        #expect(Date(millisecondsSince1970: milliseconds).millisecondsSince1970 == milliseconds)
    }
}
