import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsStore

@Suite struct MessagePayloadBuilderTests {
    let builder = MessagePayloadBuilder()

    func aps(_ built: MessagePayloadBuilder.Built) throws -> JSONValue {
        try #require(try JSONValue.parse(Data(built.bytes))["aps"])
    }

    @Test func alertCarriesIDsDefaultCategoryAndMutableContent() throws {
        let built = try builder.build(
            content: ["title": "Sale", "body": "Today only"], kind: .alert, messageID: "msg_1", campaignID: "spring")
        let json = try JSONValue.parse(Data(built.bytes))
        #expect(json["tidings"]?["id"] == "msg_1")
        #expect(json["tidings"]?["cid"] == "spring")
        #expect(json["aps"]?["mutable-content"] == .integer(1))
        #expect(json["aps"]?["category"] == .string(MessagePayloadBuilder.defaultCategory))
        #expect(json["aps"]?["content-available"] == nil)
        #expect(built.payload.alert?.title == "Sale")
    }

    @Test func ownCategoryOrButtonsReplaceTheDefaultCategory() throws {
        let own = try builder.build(
            content: ["body": "b", "category": "shop"], kind: .alert, messageID: "m")
        #expect(try aps(own)["category"] == "shop")
        let buttons = try builder.build(
            content: ["body": "b", "buttons": [["id": "buy", "title": "Buy"]]], kind: .alert, messageID: "m")
        #expect(try aps(buttons)["category"] == nil)
        #expect(buttons.payload.buttons.map(\.id) == ["buy"])
        #expect(try aps(buttons)["mutable-content"] == .integer(1))
    }

    @Test(arguments: [
        ["body": "b", "media": ["url": "https://cdn.example.com/a.jpg", "type": "image"]] as JSONValue,
        ["body": "b", "badge": ["op": "increment", "value": 2]],
        ["body": "b", "badge": ["op": "set", "value": 3]],
        ["body": "b"],
    ])
    func everyAlertIsMutableForDeliveryTracking(content: JSONValue) throws {
        let built = try builder.build(content: content, kind: .alert, messageID: "m")
        #expect(built.payload.mutableContent)
    }

    @Test(arguments: ["javascript:alert(1)", "tel:123", "file:///etc/passwd", "myapp://home", "https://"])
    func webLinksMustBeHTTPWithAHost(url: String) {
        let asDefault = #expect(throws: MessageError.self) {
            try builder.build(
                content: ["body": "b", "default_action": ["type": "web", "url": .string(url)]], kind: .alert,
                messageID: "m")
        }
        #expect(asDefault?.field == "content.default_action.url")
        let asButton = #expect(throws: MessageError.self) {
            try builder.build(
                content: [
                    "body": "b",
                    "buttons": [["id": "go", "title": "Go", "action": ["type": "web", "url": .string(url)]]],
                ],
                kind: .alert, messageID: "m")
        }
        #expect(asButton?.message.contains("http or https") == true)
        // The same URL is fine as a deep link (the SDK checks deep links against the app's allow-list).
        if url.hasPrefix("myapp") {
            #expect(
                (try? builder.build(
                    content: ["body": "b", "default_action": ["type": "deeplink", "url": .string(url)]], kind: .alert,
                    messageID: "m")) != nil)
        }
    }

    @Test func badgeInstructions() throws {
        func badge(_ value: JSONValue) throws -> BadgeInstruction {
            try builder.payload(content: ["body": "b", "badge": value], kind: .alert, messageID: "m").badge
        }
        #expect(try badge(["op": "set", "value": 4]) == .set(4))
        #expect(try badge(["op": "set", "value": 0]) == .clear)
        #expect(try badge(["op": "increment", "value": 2]) == .increment(2))
        #expect(try badge(["op": "clear"]) == .clear)
        #expect(throws: MessageError.self) { try badge(["op": "double"]) }
        #expect(throws: MessageError.self) { try badge(["op": "increment", "value": 0]) }
    }

    @Test func backgroundHasNoAlertAndIsContentAvailable() throws {
        let built = try builder.build(content: ["data": ["sync": true]], kind: .background, messageID: "m")
        let aps = try aps(built)
        #expect(aps["content-available"] == .integer(1))
        #expect(aps["alert"] == nil)
        #expect(aps["mutable-content"] == nil)
        #expect(MessageKind.background.pushType == .background)
        let request = try MessageRequest.parse(
            ["target": ["all": true], "kind": "background", "content": ["data": [:]]], now: Date())
        #expect(request.priority == 5)
        #expect(throws: MessageError.self) {
            try MessageRequest.parse(
                ["target": ["all": true], "kind": "background", "content": [:], "priority": 10], now: Date())
        }
    }

    @Test func backgroundRefusesVisibleContent() {
        let error = #expect(throws: MessageError.self) {
            try builder.build(content: ["title": "x"], kind: .background, messageID: "m")
        }
        #expect(error?.field == "content.title")
    }

    @Test func actionsMediaCouponInboxAndData() throws {
        let payload = try builder.payload(
            content: [
                "title": "t", "subtitle": "s", "body": "b", "sound": "default", "thread_id": "th",
                "default_action": ["type": "screen", "screen": "product", "params": ["id": 7]],
                "coupon": "SAVE10", "inbox": ["expires_at": 1_900_000_000], "data": ["k": "v"],
                "media": ["url": "https://cdn.example.com/v.mp4", "type": "video"],
            ], kind: .alert, messageID: "m")
        #expect(payload.defaultAction == .screen(name: "product", parameters: ["id": 7]))
        #expect(payload.media?.kind == .video)
        #expect(payload.coupon == "SAVE10")
        #expect(payload.inbox?.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(payload.data == ["k": "v"])
        #expect(payload.threadID == "th")
        #expect(payload.sound?.name == "default")
    }

    static let fiveButtons: [JSONValue] = (0..<5).map { index -> JSONValue in
        ["id": .string("b\(index)"), "title": "x"]
    }

    static let invalidContents: [(JSONValue, String)] = [
        (["body": "b", "media": ["url": "http://insecure.example.com/a.jpg"]], "content.media.url"),
        (["body": "b", "nonsense": 1], "content.nonsense"),
        ([:], "content.title"),
        (["body": 3], "content.body"),
        (["body": "b", "default_action": ["type": "teleport"]], "content.default_action.type"),
        (["body": "b", "buttons": .array(fiveButtons)], "content.buttons"),
    ]

    @Test(arguments: invalidContents)
    func invalidContentNamesTheField(content: JSONValue, field: String) {
        let error = #expect(throws: MessageError.self) {
            try builder.build(content: content, kind: .alert, messageID: "m")
        }
        #expect(error?.field == field)
        #expect(error?.code == "invalid_field")
    }

    @Test func refusesAlertOver4096BytesNamingBothSizes() throws {
        let content: JSONValue = ["body": .string(String(repeating: "x", count: 4200))]
        do {
            _ = try builder.build(content: content, kind: .alert, messageID: "m")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == "payload_too_large")
            #expect(error.message.contains("the limit is 4096 bytes"))
            #expect(error.message.hasPrefix("the payload is "))
            let size = Int(error.message.split(separator: " ")[3]) ?? 0
            #expect(size > 4096)
        }
    }

    @Test func voipMayUse5120Bytes() throws {
        let data: JSONValue = ["data": ["blob": .string(String(repeating: "x", count: 4500))]]
        let voip = try builder.build(content: data, kind: .voip, messageID: "m")
        #expect(voip.bytes.count > 4096 && voip.bytes.count <= 5120)
        #expect(throws: MessageError.self) { try builder.build(content: data, kind: .background, messageID: "m") }
        let tooBig: JSONValue = ["data": ["blob": .string(String(repeating: "x", count: 5200))]]
        do {
            _ = try builder.build(content: tooBig, kind: .voip, messageID: "m")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.message.contains("the limit is 5120 bytes"))
        }
    }
}
