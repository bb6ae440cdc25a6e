import Testing
import Tidings

/// Which UIKit call each route becomes; the rules hold even for routes an app builds by hand.
@Suite struct RouteStepTests {
    let list = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com"])

    func step(_ route: RoutedAction, handler: Bool = true) -> RouteStep {
        RouteStep(route: route, allowList: list, opensDeepLinksInApp: handler)
    }

    @Test func nonHTTPNeverReachesTheInAppBrowser() {
        #expect(
            step(.web(url: "https://example.com/a", inApp: true)) == .openInAppBrowser(url: "https://example.com/a"))
        #expect(step(.web(url: "myapp://a", inApp: true)) == .openExternally(url: "myapp://a"))
        #expect(step(.web(url: "javascript:alert(1)", inApp: true)) == .nothing)
        #expect(step(.web(url: "data:text/html,hi", inApp: true)) == .nothing)
    }

    @Test func linksOpenedOutsideTheAppPassTheAllowList() {
        #expect(step(.web(url: "https://a.example/", inApp: false)) == .openExternally(url: "https://a.example/"))
        #expect(step(.web(url: "tel:123", inApp: false)) == .nothing)
        #expect(step(.deepLink(url: "otherapp://x"), handler: false) == .nothing)
        #expect(step(.deepLink(url: "myapp://x"), handler: false) == .openExternally(url: "myapp://x"))
    }

    /// Issue #34.1: the example forwards `.onOpenURL` to `client.open` and sets no deep-link handler; a link
    /// with the app's own scheme handed to `UIApplication.open` came straight back to `.onOpenURL`, forever.
    @Test(arguments: [
        RoutedAction.deepLink(url: "myapp://orders/1"), .web(url: "myapp://orders/1", inApp: true),
        .web(url: "MyApp://orders/1", inApp: false),
    ])
    func theAppsOwnSchemeNeverReachesTheSystemOpener(route: RoutedAction) {
        let step = RouteStep(route: route, allowList: list, appSchemes: ["MYAPP"], opensDeepLinksInApp: false)
        guard case .openDeepLinkInApp = step else {
            Issue.record("expected the app's router, got \(step)")
            return
        }
    }

    @Test func anotherAppsAllowedSchemeStillOpensOutside() {
        let list = DeepLinkAllowList(schemes: ["myapp", "maps"])
        let step = RouteStep(
            route: .deepLink(url: "maps://?q=1"), allowList: list, appSchemes: ["myapp"], opensDeepLinksInApp: false)
        #expect(step == .openExternally(url: "maps://?q=1"))
    }

    /// Issue #34.9: with no key window the in-app page was silently dropped.
    @Test func withoutAPresenterAPageOpensOutsideTheApp() {
        #expect(
            RouteStep.openInAppBrowser(url: "https://example.com/a").withoutPresenter
                == .openExternally(url: "https://example.com/a"))
        #expect(
            RouteStep.offerCoupon(code: "C", then: .openInAppBrowser(url: "https://example.com/b")).withoutPresenter
                == .openExternally(url: "https://example.com/b"))
        #expect(RouteStep.openDeepLinkInApp(url: "myapp://x").withoutPresenter == .openDeepLinkInApp(url: "myapp://x"))
    }

    @Test func deepLinksGoToTheAppsHandlerWhenItHasOne() {
        #expect(step(.deepLink(url: "myapp://x")) == .openDeepLinkInApp(url: "myapp://x"))
    }

    @Test func aCouponCarriesTheStepOfWhatFollowsIt() {
        #expect(
            step(.coupon(code: "SAVE", then: .web(url: "ftp://x", inApp: true)))
                == .offerCoupon(code: "SAVE", then: .nothing))
        #expect(
            step(.coupon(code: "SAVE", then: .deepLink(url: "myapp://cart")))
                == .offerCoupon(code: "SAVE", then: .openDeepLinkInApp(url: "myapp://cart")))
        #expect(step(.coupon(code: "SAVE", then: nil)) == .offerCoupon(code: "SAVE", then: .nothing))
    }

    @Test func theRestMapOneForOne() {
        #expect(step(.none) == .nothing)
        #expect(step(.openApp(reason: "x")) == .nothing)
        #expect(
            step(.screen(name: "offers", parameters: ["id": 1])) == .showScreen(name: "offers", parameters: ["id": 1]))
        #expect(step(.reply(buttonID: "r", text: "hi")) == .passToApp(.reply(buttonID: "r", text: "hi")))
        #expect(step(.custom(buttonID: "c")) == .passToApp(.custom(buttonID: "c")))
    }
}
