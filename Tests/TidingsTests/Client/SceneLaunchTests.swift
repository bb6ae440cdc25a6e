import Testing
import Tidings

/// A scene-based app launched by a tap, a URL or a universal link (`scene(_:willConnectTo:options:)`).
@Suite struct SceneLaunchTests {
    static let tap = NotificationHandler.defaultActionIdentifier

    /// What a performer that copies coupons at once (the person tapped "Copy") does with a route.
    @MainActor
    final class CopyingPerformer: RoutePerformer {
        let client: TidingsClient
        var performed: [RoutedAction] = []

        init(client: TidingsClient) {
            self.client = client
        }

        func perform(_ route: RoutedAction, userInfo: JSONValue?) {
            performed.append(route)
            if case .coupon(let code, _) = route, let userInfo { client.couponCopied(code: code, userInfo: userInfo) }
        }
    }

    @Test func aResponseAURLAndAUniversalLinkAreHeldUntilReadyAndTheRepeatIsDropped() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let push = ClientFixture.push(messageID: "m-launch")
        let response = NotificationResponseValues(actionIdentifier: Self.tap, userInfo: push, requestIdentifier: "r-9")
        let launch = client.handleLaunch(
            SceneLaunch(
                urls: ["myapp://cart", "https://example.com/p/1", "https://other.test/x", "otherapp://y"],
                response: response))
        #expect(launch.response?.isOurs == true)
        #expect(launch.response?.events.map(\.appState) == [.terminated, .terminated])
        #expect(launch.routesToPerform.isEmpty)
        #expect(launch.otherURLs == ["https://other.test/x", "otherapp://y"])

        // iOS reports the same tap to the notification-centre delegate as well.
        let repeated = client.handleResponse(
            actionIdentifier: Self.tap, userInfo: push, appState: .background, requestIdentifier: "r-9")
        #expect(repeated.events.isEmpty)
        #expect(repeated.routeToPerform == nil)

        #expect(
            client.ready() == [
                PendingRoute(.deepLink(url: "myapp://offer/1"), userInfo: push),
                PendingRoute(.deepLink(url: "myapp://cart")),
                PendingRoute(.deepLink(url: "https://example.com/p/1")),
            ])
        #expect(try client.events.count() == 2)  // open and deeplink_open, once
    }

    @Test func aSceneConnectingAfterReadyIsPerformedAtOnce() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = client.ready()
        let launch = client.handleLaunch(SceneLaunch(urls: ["myapp://second-window"]))
        #expect(launch.routesToPerform == [PendingRoute(.deepLink(url: "myapp://second-window"))])
        #expect(client.handleLaunch(SceneLaunch()).routesToPerform.isEmpty)
    }

    @Test func aResponseThatIsNotOursIsReportedSo() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let braze: JSONValue = ["aps": ["alert": "Hi"], "ab": ["c": "x"]]
        var configuration = fixture.configuration()
        configuration.handledDialects = [.native]
        let nativeOnly = try TidingsClient(configuration: configuration)
        let launch = nativeOnly.handleLaunch(
            SceneLaunch(
                response: NotificationResponseValues(
                    actionIdentifier: Self.tap, userInfo: braze, requestIdentifier: "b")))
        #expect(launch.response?.isOurs == false)
        #expect(launch.routesToPerform.isEmpty)
        #expect(try nativeOnly.events.count() == 0)
    }

    @Test @MainActor func aCouponTappedFromAColdStartRecordsCouponCopy() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let push = ClientFixture.push(messageID: "m-coupon", action: .coupon(code: "SAVE10"))
        let response = NotificationResponseValues(actionIdentifier: Self.tap, userInfo: push, requestIdentifier: "r-c")
        _ = client.handleLaunch(SceneLaunch(response: response))
        let performer = CopyingPerformer(client: client)
        performer.perform(client.ready())
        #expect(performer.performed == [.coupon(code: "SAVE10", then: nil)])
        _ = await client.flush()
        let copies = try fixture.serverEvents(.couponCopy)
        #expect(copies.map(\.value) == ["SAVE10"])
        #expect(copies.map(\.messageID) == ["m-coupon"])
    }
}
