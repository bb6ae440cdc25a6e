import Foundation
import Testing
import Tidings
import TidingsTesting

/// A preview against what a simulated device does with the same push: the real client and extension,
/// driven by the notification-centre stand-in, media downloaded from a loopback server.
@Suite struct PreviewAgreementTests {
    struct Case: Sendable {
        var payload: JSONValue
        var appState: AppState
        var hint: MediaHint?
        var allowsInsecureMedia = true
    }

    /// Delivers `scenario` to a simulated device and previews it with the same configuration, then compares.
    static func expectAgreement(_ scenario: Case) async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        try await fixture.register()
        let configuration = fixture.configuration { $0.mediaPolicy.allowInsecureHTTP = scenario.allowsInsecureMedia }
        let client = try TidingsClient(configuration: configuration)
        _ = client.ready()
        let center = SimulatedNotificationCenter(
            client: client, extensionConfiguration: configuration, appState: scenario.appState)
        let preview = NotificationPreviewer(configuration: .init(client: configuration)).preview(
            userInfo: scenario.payload, on: DeviceProfile(systemVersion: 18, appState: scenario.appState),
            media: scenario.hint)

        let delivered = try await center.deliver(userInfo: scenario.payload, identifier: "n-1")
        #expect((delivered != nil) == preview.isShown)
        guard let delivered else { return }
        #expect(delivered.categoryID == preview.categoryID)
        let category = await center.categories.first { $0.id == delivered.categoryID }
        let buttons = (category?.actions ?? []).prefix(PushButton.maximumShown).map(NotificationPreview.Button.init)
        #expect(buttons == preview.buttons)
        #expect((delivered.attachment != nil) == preview.image?.isAttached)
        #expect(delivered.presentation == preview.foregroundPresentation)
        #expect(await center.badge == preview.badge)
        #expect((try client.inbox.unreadCount() == 1) == preview.isKeptInInbox)

        let route = await center.tap("n-1")?.routeToPerform
        let tap = try #require(preview.tap)
        switch (tap.kind, tap.isAllowed) {
        case (.deepLink, true): #expect(route == .deepLink(url: try #require(tap.destination)))
        case (.web, true): #expect(route == .web(url: try #require(tap.destination), inApp: true))
        case (_, false): #expect(route == .openApp(reason: tap.reason))
        default: #expect(route == .openApp(reason: nil))
        }
    }

    static func native(action: PushAction, media: String, kind: PushMedia.Kind = .image) -> JSONValue {
        PreviewFixtures.native(action: action, media: PushMedia(source: .remote(url: media), kind: kind))
    }

    @Test func aNativePushAgreesInTheBackgroundAndInTheForeground() async throws {
        let server = try MediaTestServer()
        let payload = Self.native(action: .deepLink(url: "myapp://offer/1"), media: server.url("/image.png"))
        try await Self.expectAgreement(Case(payload: payload, appState: .background))
        try await Self.expectAgreement(Case(payload: payload, appState: .foreground))
        await server.shutdown()
    }

    @Test func aRefusedDeepLinkAndAnImageOverTheLimitAgree() async throws {
        let server = try MediaTestServer()
        let payload = Self.native(action: .deepLink(url: "otherapp://x"), media: server.url("/declared-60mb"))
        // The hint is what the server's Content-Length says.
        try await Self.expectAgreement(
            Case(payload: payload, appState: .background, hint: MediaHint(byteCount: 60 * 1_048_576)))
        await server.shutdown()
    }

    @Test func vendorPushesAgree() async throws {
        let server = try MediaTestServer()
        var moengage = PreviewFixtures.moengage
        if case .object(var root) = moengage, case .object(var keys)? = root["moengage"] {
            keys["media-attachment"] = .string(server.url("/image.png"))
            root["moengage"] = .object(keys)
            moengage = .object(root)
        }
        try await Self.expectAgreement(Case(payload: moengage, appState: .foreground))
        // Braze's GIF over plain http, which this app's policy refuses.
        var braze = PreviewFixtures.braze
        if case .object(var root) = braze {
            root["ab"] = ["c": "braze-c", "att": ["url": .string(server.url("/animation")), "type": "gif"]]
            root["ab_uri"] = "https://example.com/shoes"
            braze = .object(root)
        }
        try await Self.expectAgreement(Case(payload: braze, appState: .background, allowsInsecureMedia: false))
        await server.shutdown()
    }

    @Test func aBackgroundPushAgrees() async throws {
        try await Self.expectAgreement(
            Case(payload: PushPayload(messageID: "m-5", contentAvailable: true).nativeJSON, appState: .background))
    }
}
