import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// The SDK driven as iOS would drive it, through the notification-centre stand-in.
@Suite struct SimulatedNotificationCenterTests {
    func center(_ fixture: ClientFixture, appState: AppState) throws -> SimulatedNotificationCenter {
        let configuration = fixture.configuration()
        let client = try TidingsClient(configuration: configuration)
        _ = client.ready()  // the app's UI is up: routes are performed at once
        return SimulatedNotificationCenter(
            client: client, extensionConfiguration: configuration, appState: appState)
    }

    @Test func aBackgroundDeliveryThenASwipeAwayIsOneDeliveryAndOneDismiss() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let center = try center(fixture, appState: .background)
        let shown = try #require(try await center.deliver(userInfo: ClientFixture.push(badge: .increment(1))))
        #expect(shown.presentation == nil)
        #expect(shown.categoryID == "tidings.default")
        #expect(await center.badge == 1)
        let dismissed = await center.dismiss(shown.identifier)
        #expect(dismissed?.events.map(\.type) == [.dismiss])
        _ = await center.client.flush()
        #expect(try fixture.serverEvents(.delivery).count == 1)
        #expect(try fixture.serverEvents(.dismiss).count == 1)
    }

    @Test func aForegroundDeliveryIsPresentedAndCountedOnceThoughBothPathsSawIt() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let center = try center(fixture, appState: .foreground)
        let shown = try #require(try await center.deliver(userInfo: ClientFixture.push(messageID: "m-2")))
        #expect(shown.presentation == .standard)
        let tapped = await center.tap(shown.identifier)
        #expect(tapped?.routeToPerform == .deepLink(url: "myapp://offer/1"))
        _ = await center.client.flush()
        #expect(try fixture.serverEvents(.delivery).count == 1)
        #expect(try fixture.serverEvents(.open).count == 1)
    }

    @Test func aSwipeOnAnAppCategoryWithoutCustomDismissNeverReachesTheApp() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let center = try center(fixture, appState: .background)
        var payload = try PushPayload(json: ClientFixture.push(messageID: "m-3"))
        payload.mutableContent = false
        payload.category = "APP_OWN"
        let shown = try #require(try await center.deliver(userInfo: payload.nativeJSON))
        #expect(await center.dismiss(shown.identifier) == nil)
    }

    @Test func aBackgroundPushWakesTheAppAndShowsNothing() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let center = try center(fixture, appState: .background)
        let silent = PushPayload(messageID: "m-4", contentAvailable: true).nativeJSON
        #expect(try await center.deliver(userInfo: silent) == nil)
        #expect(await center.delivered.isEmpty)
        _ = await center.client.flush()
        #expect(try fixture.serverEvents(.silentReceived).count == 1)
    }
}
