import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@Suite struct PayloadInspectTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-payload") }

    static let requiredKeys = [
        "dialect", "kind", "message_id", "campaign_id", "alert", "sound", "category", "thread_id", "badge",
        "mutable_content", "content_available", "action", "buttons", "media", "coupon", "inbox", "data", "warnings",
        "size_bytes", "app_id", "sent_at", "interruption_level", "relevance_score", "delivery", "unrecognized",
    ]

    private func inspectJSON(_ payload: String, _ extra: [String] = []) async throws -> JSONValue {
        let path = try scratch.file(payload).path
        let result = try await TidingsExecutable.run(["payload", "inspect", path, "--json"] + extra)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty)
        return try JSONValue.parse(result.standardOutput)
    }

    @Test func jsonHasEveryKeyAndNullsWhereAbsent() async throws {
        let json = try await inspectJSON(PayloadFixtures.silent)
        let object = try #require(json.objectValue)
        for key in Self.requiredKeys { #expect(object[key] != nil, "missing key \(key)") }
        for key in ["message_id", "campaign_id", "alert", "sound", "category", "media", "coupon", "inbox", "sent_at"] {
            #expect(object[key] == .null, "\(key) should be null")
        }
        #expect(object["dialect"] == "apns")
        #expect(object["kind"] == "background")
        #expect(object["content_available"] == true)
        #expect(object["badge"]?["op"] == "none")
        #expect(object["action"]?["type"] == "none")
        #expect(object["size_bytes"] == .integer(Int64(PayloadFixtures.silent.utf8.count)))
        let warnings = try #require(object["warnings"]?.arrayValue)
        #expect(warnings.allSatisfy { $0["code"] != nil && $0["message"] != nil && $0["severity"] != nil })
    }

    @Test func jsonDecodesTheMoEngageGuidePayload() async throws {
        let json = try await inspectJSON(PayloadFixtures.moengage)
        #expect(json["dialect"] == "moengage")
        #expect(json["kind"] == "internal")
        #expect(json["message_id"] == "55f2ba15a4ab4104a287bf88")
        #expect(json["app_id"] == "DAO6UGZ73D9RTK8B5W96TPYN_DEBUG")
        #expect(
            json["alert"] == [
                "title": "Notification Title", "subtitle": "Notification Subtitle", "body": "Notification Body",
                "title_loc_key": nil, "title_loc_args": nil, "subtitle_loc_key": nil, "subtitle_loc_args": nil,
                "loc_key": nil, "loc_args": nil, "launch_image": nil,
            ])
        #expect(json["badge"] == ["op": "increment", "value": 1])
        #expect(json["action"]?["type"] == "deeplink")
        #expect(json["action"]?["url"] == "moeapp://screen/settings")
        #expect(json["media"]?["type"] == "image")
        #expect(json["media"]?["url"] == "https://image.moengage.com/testImg.png")
        #expect(json["coupon"] == "APP200")
        #expect(json["inbox"]?["expires_at"] == 1_571_905_058)
        #expect(json["data"]?["key1"] == "val1")
        let codes = json["warnings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("background_with_alert"))
    }

    @Test func jsonKeysAreSorted() async throws {
        let path = try scratch.file(PayloadFixtures.cleanAlert).path
        let output = try await TidingsExecutable.run(["payload", "inspect", "--json", path]).standardOutput
        let topLevelKeys = output.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
            String($0.dropFirst(3).prefix { $0 != "\"" })
        }
        #expect(topLevelKeys.count >= Self.requiredKeys.count)
        #expect(topLevelKeys == topLevelKeys.sorted())
    }

    @Test(arguments: [
        (#"{"aps":{"alert":"Hi"},"tidings":{"id":"m-1"}}"#, "native"),
        (#"{"aps":{"alert":"Hi"},"ab":{"c":"c-1"}}"#, "braze"),
        (#"{"aps":{"alert":"Hi"},"moengage":{"cid":"c-1"}}"#, "moengage"),
        (#"{"aps":{"alert":"Hi"},"messageDeliveryReceiptData":{"messageId":1}}"#, "nhncloud"),
        (#"{"aps":{"alert":"Hi"},"td_campaign_id":"td-1"}"#, "treasuredata"),
        (#"{"aps":{"alert":"Hi"},"gcm.message_id":"0:1"}"#, "fcm"),
        (#"{"aps":{"alert":"Hi"}}"#, "apns"),
    ])
    func reportsTheDialect(_ payload: String, _ dialect: String) async throws {
        let json = try await inspectJSON(payload)
        #expect(json["dialect"] == .string(dialect))
    }

    @Test func humanOutputShowsAlignedSections() async throws {
        let path = try scratch.file(PayloadFixtures.moengage).path
        let result = try await TidingsExecutable.run(["payload", "inspect", path, "--now", "1500000000"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let expected = [
            "Dialect       moengage",
            "Kind          internal",
            "Message       55f2ba15a4ab4104a287bf88",
            "Campaign      55f2ba15a4ab4104a287bf88",
            "Alert",
            "  Title       Notification Title",
            "  Body        Notification Body",
            "Sound         default",
            "Badge         increment by 1",
            "Action        deep link moeapp://screen/settings",
            "Coupon        APP200",
            "  key1        \"val1\"",
        ]
        for line in expected { #expect(lines.contains(line), "missing line: \(line)") }
        #expect(lines.contains { $0.hasPrefix("Media         image https://image.moengage.com/testImg.png") })
        #expect(lines.contains { $0.hasPrefix("  warning     background_with_alert: ") })
        #expect(lines.contains { $0.hasPrefix("Size          \(PayloadFixtures.moengage.utf8.count) of 4096 bytes (") })
        // Every row's value, top level or indented, starts in the same column.
        let columns = Set(lines.compactMap(Self.valueColumn))
        #expect(columns == [14], "values are not aligned: \(columns)")
    }

    /// Where the value of a `label  value` row starts; nil for headings and blank lines.
    private static func valueColumn(_ line: String) -> Int? {
        let characters = Array(line)
        var index = 0
        while index < characters.count, characters[index] == " " { index += 1 }
        while index + 1 < characters.count, !(characters[index] == " " && characters[index + 1] == " ") {
            index += 1
        }
        guard index + 1 < characters.count else { return nil }
        while index < characters.count, characters[index] == " " { index += 1 }
        return index < characters.count ? index : nil
    }

    @Test func humanOutputListsButtonsMediaAndInbox() async throws {
        let path = try scratch.file(PayloadFixtures.native).path
        let result = try await TidingsExecutable.run(["payload", "inspect", path, "--now", "1767225600"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let expected = [
            "Dialect       native",
            "App           com.example.shop",
            "Sent          2026-01-01T00:00:00Z (1767225600)",
            "Badge         increment by 1",
            "Flags         mutable-content",
            "Action        deep link shop://orders/4417",
            "Buttons",
            "  track       \"Track\" web https://shop.example.com/t/4417 (in-app browser)",
            "  reply       \"Ask\" reply placeholder \"Your question\"",
            "Media         image https://cdn.example.com/parcel.jpg (.jpg, image/jpeg)",
            "Inbox         kept until 2026-01-08T00:00:00Z (1767830400)",
            "  order_id    \"4417\"",
            "Warnings      none",
        ]
        for line in expected { #expect(lines.contains(line), "missing line: \(line)") }
    }

    @Test func nativeExampleLintsCleanUntilItsInboxExpires() async throws {
        let path = try scratch.file(PayloadFixtures.native).path
        let before = try await TidingsExecutable.run(["payload", "lint", path, "--now", "1767225600"])
        #expect(before.status == 0)
        #expect(before.standardOutput.hasPrefix("\(path): no problems found (native alert push, "))
        let after = try await TidingsExecutable.run(["payload", "lint", path, "--now", "1767830401"])
        #expect(after.status == 0)
        #expect(after.standardOutput.hasPrefix("warning  inbox_expired: inbox entry expired at 2026-01-08T00:00:00Z"))
    }

    @Test func humanOutputSaysNoneForAbsentSections() async throws {
        let path = try scratch.file(PayloadFixtures.silent).path
        let output = try await TidingsExecutable.run(["payload", "inspect", path]).standardOutput
        for fragment in [
            "Alert         none", "Buttons       none", "Media         none", "Inbox         none", "Message       —",
        ] {
            #expect(output.contains(fragment), "missing \(fragment)")
        }
    }

    @Test func readsStandardInput() async throws {
        for arguments in [["payload", "inspect", "--json"], ["payload", "inspect", "-", "--json"]] {
            let result = try await TidingsExecutable.run(arguments, input: Data(PayloadFixtures.cleanAlert.utf8))
            #expect(result.status == 0)
            let json = try JSONValue.parse(result.standardOutput)
            #expect(json["alert"]?["title"] == "Sale")
        }
    }

    @Test func inspectExitsZeroEvenWithLintErrors() async throws {
        let path = try scratch.file(PayloadFixtures.badBadge).path
        let result = try await TidingsExecutable.run(["payload", "inspect", path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("aps_wrong_type"))
    }
}
