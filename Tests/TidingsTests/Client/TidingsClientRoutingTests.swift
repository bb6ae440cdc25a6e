import Testing
import Tidings

@Suite struct TidingsClientRoutingTests {
    @Test func theApplicationStateBecomesTheEventsAppState() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        // Before ready(): the tap launched the app.
        #expect(client.appState(for: .inactive) == .terminated)
        #expect(client.appState(for: .background) == .terminated)
        #expect(client.appState(for: .active) == .foreground)
        _ = client.ready()
        #expect(client.isReady)
        #expect(client.appState(for: .inactive) == .background)
        #expect(client.appState(for: .background) == .background)
        #expect(client.appState(for: .active) == .foreground)
    }

    @Test func aTapFromTheForegroundIsRecordedAsForeground() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = client.ready()
        let handled = client.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, userInfo: ClientFixture.push(),
            appState: client.appState(for: .active))
        #expect(handled.events.map(\.appState) == [.foreground, .foreground])
    }

    @Test func theClientsStepUsesItsAllowList() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        #expect(
            client.step(for: .deepLink(url: "myapp://a"), opensDeepLinksInApp: false)
                == .openExternally(url: "myapp://a"))
        #expect(client.step(for: .deepLink(url: "evil://a"), opensDeepLinksInApp: false) == .nothing)
    }

    /// Issue #34.1: `.onOpenURL` → `client.open` → the performer without a deep-link handler. The URL the app
    /// received must end in the app's router, never in `UIApplication.open` (which would deliver it again).
    @Test func aURLTheAppReceivedWithItsOwnSchemeIsRoutedInTheApp() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration { $0.appURLSchemes = ["myapp"] })
        _ = client.ready()
        let handled = client.handleLaunch(SceneLaunch(urls: ["myapp://orders/7"]))
        let steps = handled.routesToPerform.map { client.step(for: $0.route, opensDeepLinksInApp: false) }
        #expect(steps == [.openDeepLinkInApp(url: "myapp://orders/7")])
    }
}
