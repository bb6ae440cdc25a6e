import Foundation
import Testing
import Tidings
import TidingsTesting

/// The performer an app or a test writes: records what it was asked to do.
@MainActor
final class RecordingRoutePerformer: RoutePerformer {
    var performed: [(route: RoutedAction, userInfo: JSONValue?)] = []

    func perform(_ route: RoutedAction, userInfo: JSONValue?) {
        performed.append((route, userInfo))
    }

    var routes: [RoutedAction] { performed.map(\.route) }
}

@Suite @MainActor struct RoutePerformerTests {
    static let userInfo: JSONValue = ["m": "1"]

    @Test func routeDueNowIsPerformedWithItsPush() {
        let performer = RecordingRoutePerformer()
        let handled = HandledResponse(isOurs: true, submission: .performNow(.deepLink(url: "myapp://a")), events: [])
        #expect(performer.perform(handled, userInfo: Self.userInfo))
        #expect(performer.routes == [.deepLink(url: "myapp://a")])
        #expect(performer.performed.first?.userInfo == Self.userInfo)
    }

    @Test(arguments: [
        HandledResponse(isOurs: true, submission: .held, events: []),
        HandledResponse(isOurs: true, submission: .duplicate, events: []),
        HandledResponse(isOurs: true, submission: .performNow(.none), events: []),
    ])
    func heldRepeatedOrEmptyRoutesAreNotPerformedButStillOurs(handled: HandledResponse) {
        let performer = RecordingRoutePerformer()
        #expect(performer.perform(handled, userInfo: Self.userInfo))
        #expect(performer.performed.isEmpty)
    }

    @Test func pushThatIsNotOursIsLeftForTheNextHandler() {
        let performer = RecordingRoutePerformer()
        let handled = HandledResponse(isOurs: false, submission: .performNow(.none), events: [])
        #expect(!performer.perform(handled, userInfo: Self.userInfo))
        #expect(performer.performed.isEmpty)
    }

    @Test func readyRoutesArePerformedInOrderWithTheirPushAndNoneIsSkipped() {
        let performer = RecordingRoutePerformer()
        performer.perform([
            PendingRoute(.web(url: "https://example.com", inApp: true), userInfo: Self.userInfo), PendingRoute(.none),
            PendingRoute(.custom(buttonID: "b")),
        ])
        #expect(performer.routes == [.web(url: "https://example.com", inApp: true), .custom(buttonID: "b")])
        #expect(performer.performed.map(\.userInfo) == [Self.userInfo, nil])
    }

    @Test func urlOutsideTheAllowListIsNotPerformed() {
        let performer = RecordingRoutePerformer()
        #expect(!performer.perform(URLDecision(isOurs: false, route: .none, reason: "scheme not allowed")))
        #expect(performer.perform(URLDecision(isOurs: true, route: .deepLink(url: "myapp://x"), reason: nil)))
        #expect(performer.routes == [.deepLink(url: "myapp://x")])
    }

    @Test func tapBeforeReadyIsPerformedOnceAtReady() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let performer = RecordingRoutePerformer()
        let push = ClientFixture.push()
        let launchTap = client.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, userInfo: push,
            appState: .terminated, requestIdentifier: "r-1")
        #expect(performer.perform(launchTap, userInfo: push))
        #expect(performer.performed.isEmpty)
        let delegateRepeat = client.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, userInfo: push,
            appState: .background, requestIdentifier: "r-1")
        performer.perform(delegateRepeat, userInfo: push)
        performer.perform(client.ready())
        #expect(performer.routes == [.deepLink(url: "myapp://offer/1")])
        #expect(performer.performed.first?.userInfo == push)
        performer.perform(client.ready())
        #expect(performer.routes.count == 1)
    }
}
