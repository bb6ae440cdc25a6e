import Testing
import Tidings

/// A push is untrusted input: its web links must neither crash the in-app browser nor reach any scheme.
@Suite struct WebLinkSafetyTests {
    let tap = NotificationHandler.defaultActionIdentifier

    @Test(arguments: [
        "tel:+15555550100", "javascript:alert(1)", "file:///etc/passwd", "otherapp://pay?amount=100", "no-scheme",
        "https://",
    ])
    func aWebLinkWithAnUnlistedSchemeOnlyOpensTheApp(url: String) throws {
        for inApp in [true, false] {
            let decision = HandlingFixtures.handler().handleResponse(
                actionIdentifier: tap, payload: HandlingFixtures.native(action: .web(url: url, inApp: inApp)),
                appState: .background)
            guard case .openApp(let reason) = decision.route else {
                Issue.record("\(url) became \(decision.route)")
                continue
            }
            #expect(try #require(reason).isEmpty == false)
            #expect(decision.events.map(\.type) == [.open])
        }
    }

    @Test func anAllowedSchemeInAWebLinkOpensOutsideTheAppNeverInTheBrowser() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(action: .web(url: "MyApp://sale", inApp: true)),
            appState: .background)
        #expect(decision.route == .web(url: "MyApp://sale", inApp: false))
        #expect(decision.events.map(\.type) == [.open, .linkOpen])
    }

    @Test func aWebButtonWithAnUnlistedSchemeRecordsTheTapButNoLink() {
        let button = PushButton(id: "pay", title: "Pay", action: .web(url: "otherapp://pay", inApp: false))
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: "pay", payload: HandlingFixtures.native(buttons: [button]), appState: .foreground)
        guard case .openApp = decision.route else {
            Issue.record("expected openApp, got \(decision.route)")
            return
        }
        #expect(decision.events.map(\.type) == [.action])
    }

    @Test func aWebButtonOverHTTPKeepsItsInAppChoice() {
        let button = PushButton(id: "read", title: "Read", action: .web(url: "http://example.org/a", inApp: true))
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: "read", payload: HandlingFixtures.native(buttons: [button]), appState: .foreground)
        #expect(decision.route == .web(url: "http://example.org/a", inApp: true))
        #expect(decision.events.map(\.type) == [.action, .linkOpen])
    }

    @Test(arguments: [
        ("https://example.com/a", true), ("HTTP://example.com", true), ("https://", false), ("myapp://x", false),
        ("mailto:a@example.com", false), ("//example.com/a", false),
    ])
    func onlyHTTPPagesWithAHostAreBrowsable(url: String, browsable: Bool) {
        #expect(DeepLinkAllowList.isBrowsable(url) == browsable)
    }

    @Test func outsideTheAppTheAllowListAddsItsSchemesToHTTP() {
        let list = DeepLinkAllowList(schemes: ["myapp"])
        #expect(list.externalRejectionReason("https://anywhere.example/") == nil)
        #expect(list.externalRejectionReason("myapp://a") == nil)
        #expect(list.externalRejectionReason("sms:123") != nil)
        #expect(DeepLinkAllowList().externalRejectionReason("myapp://a") != nil)
    }
}
