import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Templates in message content: checked when `POST /v1/messages` accepts the message, rendered per
/// installation when fan-out sends it.
@Suite struct PersonalisedMessageTests {
    func titles(_ fixture: MessageFixture) throws -> [String: String] {
        var titles: [String: String] = [:]
        for push in fixture.provider.pushes {
            titles[push.installationID ?? ""] = try JSONValue.parse(push.payload)["aps"]?["alert"]?["title"]?
                .stringValue
        }
        return titles
    }

    @Test(arguments: StoreBackend.allCases)
    func installationsWithDifferentAttributesGetDifferentlyRenderedPushes(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try await fixture.register(
            "aiko", seed: 1, ["language": "ja-JP", "attributes": ["first_name": "Aiko", "points": 120]])
        try await fixture.register(
            "ben", seed: 2, ["language": "en-GB", "attributes": ["first_name": "ben", "points": 7.5]])
        try await fixture.register("anon", seed: 3)
        let reply = try await fixture.send(
            [
                "target": ["all": true],
                "content": [
                    "title": #"Hi {{ attributes.first_name | capitalize | default: "there" }}"#,
                    "body":
                        #"You have {{attributes.points | default: "no"}} points ({{installation.language | default: "?"}})"#,
                    "default_action": ["type": "deeplink", "url": #"shop://points/{{installation.id}}"#],
                    "data": ["raw": "{{not a template}}"],
                ],
            ])
        #expect(reply.status == 202, "\(reply.json)")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        #expect(try titles(fixture) == ["aiko": "Hi Aiko", "ben": "Hi Ben", "anon": "Hi there"])
        var bodies: [String: String] = [:]
        for push in fixture.provider.pushes {
            let payload = try JSONValue.parse(push.payload)
            bodies[push.installationID ?? ""] = payload["aps"]?["alert"]?["body"]?.stringValue
            #expect(payload["tidings"]?["action"]?["url"] == .string("shop://points/\(push.installationID ?? "")"))
            #expect(payload["tidings"]?["data"]?["raw"] == "{{not a template}}")
            #expect(payload["tidings"]?["id"] == .string(messageID))
        }
        #expect(
            bodies == [
                "aiko": "You have 120 points (ja-JP)", "ben": "You have 7.5 points (en-GB)",
                "anon": "You have no points (?)",
            ])
        #expect(try await fixture.status(messageID).count("sent") == 3)
    }

    @Test func variantsAndLanguagesAreRenderedFromTheirOwnContent() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("ja", seed: 1, ["language": "ja", "attributes": ["first_name": "Aiko"]])
        try await fixture.register("en", seed: 2, ["language": "en", "attributes": ["first_name": "Ben"]])
        let reply = try await fixture.send(
            [
                "target": ["all": true],
                "content": [
                    "default": ["title": #"Hello {{attributes.first_name | default: "friend"}}"#],
                    "ja": ["title": #"こんにちは {{attributes.first_name | default: "さん"}}"#],
                ],
            ])
        #expect(reply.status == 202, "\(reply.json)")
        try await fixture.worker().drain()
        #expect(try titles(fixture) == ["ja": "こんにちは Aiko", "en": "Hello Ben"])
    }

    @Test func templatesThatCannotRenderForEveryoneAreRefusedAtAcceptance() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1, ["attributes": ["first_name": "Aiko"]])
        let cases: [(JSONValue, String, String)] = [
            (["title": "Hi {{attributes.first_name}}"], "content.title", "missing_default at position 3"),
            (["title": "x", "body": "Hi {{ attributes.first_name "], "content.body", "unclosed_tag at position 3"),
            (
                ["title": "{{ installation.password | default: \"x\" }}"], "content.title",
                "unknown_variable at position 3"
            ),
            (
                ["title": "x", "subtitle": "{{ attributes.a | shout }}"], "content.subtitle",
                "invalid_filter at position 18"
            ),
            (
                [
                    "title": "x",
                    "buttons": [
                        [
                            "id": "a", "title": "A",
                            "action": ["type": "web", "url": "https://x.test/{{ attributes.a }}"],
                        ]
                    ],
                ],
                "content.buttons[0].action.url", "missing_default"
            ),
            (
                ["title": "x", "default_action": ["type": "deeplink", "url": "app://{{ {{ }}"]],
                "content.default_action.url", "nested_tag"
            ),
            (
                ["default": ["title": "ok"], "ja": ["title": "{{installation.country}}"]], "content.ja.title",
                "missing_default"
            ),
        ]
        for (content, field, detail) in cases {
            let reply = try await fixture.send(["target": ["all": true], "content": content])
            #expect(reply.status == 400, "\(content)")
            #expect(reply.errorCode == "invalid_template", "\(content): \(reply.json)")
            #expect(reply.errorMessage.hasPrefix(field), "\(content): \(reply.errorMessage)")
            #expect(reply.errorMessage.contains(detail), "\(content): \(reply.errorMessage)")
        }
        let variant = try await fixture.send(
            [
                "target": ["all": true],
                "variants": [
                    ["id": "a", "weight": 1, "content": ["title": "fine"]],
                    ["id": "b", "weight": 1, "content": ["title": "{{attributes.x}}"]],
                ],
            ])
        #expect(variant.status == 400)
        #expect(variant.errorMessage.hasPrefix("variants[1].content.title"), "\(variant.errorMessage)")
        #expect(try fixture.store.messages(appID: fixture.harness.appID, query: MessageListQuery(limit: 10)).isEmpty)

        // Templated links are accepted when their shape is a link.
        let link = try await fixture.send(
            [
                "target": ["all": true],
                "content": [
                    "title": "x",
                    "default_action": [
                        "type": "web", "url": #"https://x.test/o?c={{attributes.code | default: "none"}}"#,
                    ],
                ],
            ])
        #expect(link.status == 202, "\(link.json)")
    }

    @Test func aRenderOverTheAPNsLimitIsSkippedWithItsReasonAndCounted() async throws {
        let fixture = try MessageFixture()
        let long = String(repeating: "é", count: 128)
        try await fixture.register("long", seed: 1, ["attributes": ["a": .string(long), "b": .string(long)]])
        try await fixture.register("short", seed: 2)
        // About 3,900 bytes as written: within the limit at acceptance, over it once two long values are in.
        let padding = String(repeating: "p", count: 3_700)
        let reply = try await fixture.send(
            [
                "target": ["all": true],
                "content": [
                    "title":
                        #"{{attributes.a | default: ""}}{{attributes.b | default: ""}}{{attributes.a | default: ""}}"#,
                    "body": .string(padding),
                ],
            ])
        #expect(reply.status == 202, "\(reply.json)")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.installationID) == ["short"])
        let status = try await fixture.status(messageID)
        #expect(status.skipped("rendered_payload_too_large") == 1)
        #expect(status.count("sent") == 1)
    }

    @Test func aMessageWithoutTemplatesIsSentAsStored() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1, ["attributes": ["first_name": "Aiko"]])
        let reply = try await fixture.send(
            ["target": ["all": true], "content": ["title": "Hello", "body": "No braces", "data": ["x": "{{y}}"]]])
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        let stored = try #require(try fixture.store.message(appID: fixture.harness.appID, messageID: messageID))
        #expect(fixture.provider.pushes.map(\.payload) == [stored.payload])
    }
}
