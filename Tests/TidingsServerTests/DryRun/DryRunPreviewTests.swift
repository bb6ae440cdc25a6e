import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// A dry run's `device_previews`: each rendering run through the SDK's own handling on the default profiles.
@Suite struct DryRunPreviewTests {
    static let content: JSONValue = [
        "title": "Hello", "body": "World", "sound": "default", "badge": ["op": "increment"],
        "media": ["url": "https://cdn.example.com/sale.jpg"],
        "default_action": ["type": "deeplink", "url": "myapp://offer/1"],
        "buttons": [
            ["id": "buy", "title": "Buy", "action": ["type": "web", "url": "https://shop.example.com"]],
            ["id": "no", "title": "No thanks", "action": ["type": "dismiss"], "destructive": true],
        ],
    ]

    @Test func eachRenderingIsPreviewedOnTheDefaultDevicesByTheSDK() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        let answer = try await fixture.dryRun(["target": ["all": true], "content": Self.content])
        let rendering = try #require(answer["renderings"]?.arrayValue?.first)
        let previews = try #require(rendering["device_previews"]?.arrayValue)
        #expect(
            previews.map { $0["device"] } == [
                "iPhone, iOS 18, app in background", "iPhone, iOS 18, app in foreground",
                "iPhone, iOS 16, app not running",
            ])
        // Exactly the SDK's answer for the rendered payload.
        let payload = try (rendering["payload"] ?? .null).serialized()
        // Exactly the SDK's answer but for the deep link's verdict, which the app's allow-list gives (below).
        func withoutTap(_ preview: JSONValue) -> JSONValue? {
            preview.objectValue.map { .object($0.filter { $0.key != "tap" }) }
        }
        let sdk = try NotificationPreviewer().previews(payload: payload).map(\.json)
        #expect(previews.map(withoutTap) == sdk.map(withoutTap))
        #expect(sdk[0]["tap"]?["allowed"] == false)

        let background = previews[0]
        #expect(background["shown"] == true && background["title"] == "Hello" && background["body"] == "World")
        #expect(
            background["image"]
                == [
                    "attached": true, "url": "https://cdn.example.com/sale.jpg",
                    "reason": "would be downloaded (10 MB max)",
                ])
        #expect(background["category"]?.stringValue?.hasPrefix("tidings.b.") == true)
        #expect(
            background["buttons"]
                == [
                    ["id": "buy", "title": "Buy", "opens_app": true, "destructive": false],
                    ["id": "no", "title": "No thanks", "opens_app": false, "destructive": true],
                ])
        // The server does not know the app's allow-list: whether the deep link opens is the app's.
        #expect(
            background["tap"]
                == [
                    "kind": "deep_link", "destination": "myapp://offer/1", "allowed": .null,
                    "reason": "opened if the app's TidingsDeepLinkSchemes lists myapp; otherwise the tap opens the app",
                ])
        #expect(background["foreground_presentation"] == .null)
        #expect(background["badge"] == 1 && background["sound"] == "default" && background["inbox"] == false)
        #expect(previews[1]["foreground_presentation"] == ["banner", "list", "sound", "badge"])
        #expect(previews[2]["shown"] == true && previews[2]["foreground_presentation"] == .null)
        let notes = answer["notes"]?.arrayValue ?? []
        #expect(notes.contains { $0.stringValue?.hasPrefix("Device previews run the SDK's own handling") == true })
    }

    @Test func aBackgroundPushShowsNothingAndAVoIPPushIsNotPreviewed() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        let background = try await fixture.dryRun(
            ["target": ["all": true], "kind": "background", "content": ["data": ["sync": 1]]])
        let previews = background["renderings"]?.arrayValue?.first?["device_previews"]?.arrayValue ?? []
        #expect(previews.count == 3)
        #expect(previews.prefix(2).allSatisfy { $0["shown"] == false })
        #expect(previews[0]["not_shown_reason"] == "background push: nothing is shown, the app is woken")

        let voip = try await fixture.dryRun(
            ["target": ["all": true], "kind": "voip", "content": ["data": ["caller": "Alice"]]])
        #expect(voip["renderings"]?.arrayValue?.first?["device_previews"] == .array([]))
        #expect(
            voip["notes"]?.arrayValue?.contains { $0.stringValue?.hasPrefix("VoIP pushes go to PushKit") == true }
                == true)
    }

    @Test func mediaOverPlainHTTPFollowsTheServersInsecureMediaHosts() async throws {
        let harness = try APIHarness(backend: .sqlite, provider: RecordingPushProvider()) {
            $0.insecureMediaHosts = ["media.local"]
        }
        try await harness.register(
            "a", ["apns_token": .string(APIHarness.token(1)), "consents": ["notifications": true]])
        let reply = try await harness.call(
            "POST", "/v1/messages", key: harness.serverKey,
            json: [
                "target": ["all": true], "dry_run": true,
                "content": ["title": "Hi", "media": ["url": "http://media.local/a.png"]],
            ])
        #expect(reply.status == 200, "\(reply.json)")
        let image = reply.json["renderings"]?.arrayValue?.first?["device_previews"]?.arrayValue?.first?["image"]
        #expect(image?["attached"] == true)
    }
}
