import Foundation
import Testing
import TidingsModel

@Suite struct PayloadReportTests {
    static let inspectKeys = [
        "dialect", "kind", "delivery", "message_id", "campaign_id", "app_id", "sent_at", "alert", "sound",
        "category", "thread_id", "target_content_id", "interruption_level", "relevance_score", "badge",
        "mutable_content", "content_available", "is_internal", "action", "buttons", "media", "coupon", "inbox",
        "data", "unrecognized", "warnings", "size_bytes", "compact_size_bytes", "size_limit",
    ]

    @Test(
        arguments: [
            ("", PayloadDecodingError.Code.empty, "empty input"),
            ("  \n ", .empty, "empty input"),
            (#"{"aps":{"alert":"Hi"}"#, .malformedJSON, "unexpected end of input at line 1, column 22"),
            ("{\n  \"aps\": nope\n}", .malformedJSON, "at line 2, column 1"),
            ("[1, 2]", .notAnObject, "found an array at line 1, column 1"),
            ("\n  \"hello\"", .notAnObject, #"found string "hello" at line 2, column 3"#),
        ] as [(String, PayloadDecodingError.Code, String)])
    func unreadableBytesThrowAPositionedError(_ text: String, _ code: PayloadDecodingError.Code, _ fragment: String) {
        #expect {
            _ = try PayloadReport.analyze(Array(text.utf8), now: Date())
        } throws: { error in
            guard let error = error as? PayloadDecodingError else { return false }
            return error.code == code && error.message.contains(fragment) && !error.message.contains("\n")
        }
    }

    @Test func everyTruncationIsRejectedWithAPosition() throws {
        let bytes = Array(
            #"{"aps":{"alert":{"title":"Größe","body":"\u00e9"},"badge":2},"tidings":{"id":"m-1","b":[1,2.5,true,null]}}"#
                .utf8)
        _ = try PayloadReport.analyze(bytes, now: Date())
        for length in 0..<bytes.count {
            do {
                _ = try PayloadReport.analyze(Array(bytes.prefix(length)), now: Date())
                Issue.record("a \(length)-byte prefix was accepted")
            } catch {
                #expect(error.code == (length == 0 ? .empty : .malformedJSON))
                #expect(error.message.contains("line 1, column"))
                #expect(error.byteOffset.map { $0 <= length } == true)
            }
        }
    }

    @Test func invalidUTF8IsMalformedWithItsOffset() {
        let bytes = Array(#"{"aps":{"alert":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)
        #expect {
            _ = try PayloadReport.analyze(bytes, now: Date())
        } throws: { error in
            guard let error = error as? PayloadDecodingError else { return false }
            return error.code == .malformedJSON && error.message.contains("UTF-8")
                && (17...18).contains(error.byteOffset ?? -1)
        }
    }

    @Test func analyzeLintsTheRawJSONAndMeasuresTheBytes() throws {
        let text = #"{"aps":{"alert":"Hi","badge":"3"}}"#
        let report = try PayloadReport.analyze(Array(text.utf8), now: Date(), isVoIP: true)
        #expect(report.sizeInBytes == text.utf8.count)
        #expect(report.sizeLimit == 5120)
        #expect(report.warnings.contains { $0.code == "aps_wrong_type" && $0.path == "aps.badge" })
        #expect(report.hasErrors)
    }

    @Test func jsonHasEveryKeyWithNullWhereAbsent() throws {
        let report = PayloadReport(payload: PushPayload(dialect: .apns), warnings: [], sizeInBytes: 2, sizeLimit: 4096)
        let object = try #require(report.json.objectValue)
        #expect(Set(object.keys) == Set(Self.inspectKeys))
        for key in ["message_id", "campaign_id", "app_id", "sent_at", "alert", "sound", "media", "coupon", "inbox"] {
            #expect(object[key] == .null, "\(key) should be null")
        }
        #expect(object["badge"] == ["op": "none", "value": nil])
        #expect(object["action"]?["type"] == "none")
        #expect(object["buttons"] == [])
        #expect(object["kind"] == "alert")
        #expect(object["size_bytes"] == 2)
    }

    @Test func jsonMapsEveryField() throws {
        let payload = PushPayload(
            dialect: .moengage, messageID: "m-1", campaignID: "c-1", appID: "app",
            sentAt: Date(timeIntervalSince1970: 1_700_000_000), alert: PushAlert(title: "T", subtitle: "S", body: "B"),
            sound: PushSound(name: "bell.caf", isCritical: true, volume: 0.5), category: "SALE", threadID: "t",
            interruptionLevel: .timeSensitive, relevanceScore: 0.25, badge: .increment(2), mutableContent: true,
            defaultAction: .web(url: "https://shop.example", inApp: true),
            buttons: [
                PushButton(id: "r", title: "Reply", action: .reply(placeholder: "Say", submitTitle: "Send")),
                PushButton(id: "d", title: "Open", action: .deepLink(url: "app://x"), isDestructive: true),
            ],
            media: PushMedia(source: .remote(url: "https://cdn.example/a.gif"), kind: .gif), coupon: "SAVE10",
            inbox: InboxPolicy(expiresAt: Date(timeIntervalSince1970: 1_800_000_000.5)), data: ["k": "v"],
            unrecognized: ["moengage": ["x": 1]])
        let warning = PayloadWarning(code: "x_y", severity: .warning, message: "m", path: "aps")
        let json = PayloadReport(payload: payload, warnings: [warning], sizeInBytes: 10, sizeLimit: 4096).json
        #expect(json["dialect"] == "moengage")
        #expect(json["sent_at"] == .integer(1_700_000_000))
        #expect(json["alert"]?["subtitle"] == "S")
        #expect(json["sound"] == ["name": "bell.caf", "critical": true, "volume": 0.5])
        #expect(json["badge"] == ["op": "increment", "value": 2])
        #expect(json["interruption_level"] == "time-sensitive")
        #expect(json["action"]?["type"] == "web")
        #expect(json["action"]?["in_app"] == true)
        #expect(json["buttons"]?.arrayValue?.map { $0["type"] } == ["reply", "deeplink"])
        #expect(json["buttons"]?.arrayValue?.first?["submit_title"] == "Send")
        #expect(json["buttons"]?.arrayValue?.last?["url"] == "app://x")
        #expect(json["media"]?["type"] == "gif")
        #expect(json["inbox"]?["expires_at"] == .double(1_800_000_000.5))
        #expect(json["data"] == ["k": "v"])
        #expect(json["unrecognized"] == ["moengage": ["x": 1]])
        #expect(json["warnings"] == [["code": "x_y", "severity": "warning", "message": "m", "path": "aps"]])
        #expect(json["delivery"] == "alert")
    }

    @Test(arguments: [
        (PushAction.openApp, "open_app"), (.deepLink(url: "a://b"), "deeplink"), (.coupon(code: "C"), "coupon"),
        (.screen(name: "Cart", parameters: ["id": 3]), "screen"),
    ])
    func actionTypes(_ action: PushAction, _ type: String) {
        let json = PayloadReport(
            payload: PushPayload(defaultAction: action), warnings: [], sizeInBytes: 0, sizeLimit: 4096
        ).json
        #expect(json["action"]?["type"] == .string(type))
    }

    @Test func badgeClearHasNoOperand() {
        let json = PayloadReport(payload: PushPayload(badge: .clear), warnings: [], sizeInBytes: 0, sizeLimit: 4096)
            .json
        #expect(json["badge"] == ["op": "clear", "value": nil])
    }
}
