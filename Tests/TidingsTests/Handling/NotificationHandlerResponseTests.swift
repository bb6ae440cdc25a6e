import Foundation
import Testing
import Tidings

@Suite struct NotificationHandlerResponseTests {
    let tap = NotificationHandler.defaultActionIdentifier

    @Test func tapWithoutActionOpensTheAppAndRecordsOpen() throws {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(), appState: .background)
        #expect(decision.isOurs)
        #expect(decision.route == .openApp(reason: nil))
        #expect(decision.events.map(\.type) == [.open])
        let open = try #require(decision.events.first)
        #expect(open.messageID == "m-1")
        #expect(open.campaignID == "c-1")
        #expect(open.installationID == "inst-1")
        #expect(open.userID == "user-7")
        #expect(open.appVersion == "3.2")
        #expect(open.dialect == "native")
        #expect(open.source == .app)
        #expect(open.appState == .background)
        #expect(open.occurredAt == HandlingFixtures.now.millisecondsSince1970)
    }

    @Test func allowedDeepLinkRoutesAndRecordsDeeplinkOpen() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(action: .deepLink(url: "myapp://orders/42")),
            appState: .terminated)
        #expect(decision.route == .deepLink(url: "myapp://orders/42"))
        #expect(decision.events.map(\.type) == [.open, .deeplinkOpen])
        #expect(decision.events.last?.value == "myapp://orders/42")
    }

    @Test(arguments: ["evil://steal", "https://attacker.test/x", "javascript:alert(1)", "not a url"])
    func disallowedDeepLinkOpensTheAppWithAReason(url: String) throws {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(action: .deepLink(url: url)), appState: .background)
        guard case .openApp(let reason) = decision.route else {
            Issue.record("expected openApp, got \(decision.route)")
            return
        }
        #expect(try #require(reason).isEmpty == false)
        #expect(decision.events.map(\.type) == [.open])
    }

    @Test(arguments: [true, false])
    func webActionRecordsLinkOpen(inApp: Bool) {
        let url = "https://news.example.org/a"
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(action: .web(url: url, inApp: inApp)),
            appState: .background)
        #expect(decision.route == .web(url: url, inApp: inApp))
        #expect(decision.events.map(\.type) == [.open, .linkOpen])
        #expect(decision.events.last?.value == url)
    }

    @Test func screenActionPassesNameAndParameters() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap,
            payload: HandlingFixtures.native(action: .screen(name: "order", parameters: ["id": 42])),
            appState: .foreground)
        #expect(decision.route == .screen(name: "order", parameters: ["id": 42]))
        #expect(decision.events.map(\.type) == [.open, .screenOpen])
        #expect(decision.events.last?.value == "order")
    }

    @Test func couponActionPromptsAndCopyIsRecordedWhenTheAppReportsIt() throws {
        let handler = HandlingFixtures.handler()
        let payload = HandlingFixtures.native(action: .coupon(code: "SAVE10"))
        let decision = handler.handleResponse(actionIdentifier: tap, payload: payload, appState: .background)
        #expect(decision.route == .coupon(code: "SAVE10", then: nil))
        #expect(decision.events.map(\.type) == [.open])
        let copied = try #require(handler.couponCopied(code: "SAVE10", payload: payload))
        #expect(copied.type == .couponCopy)
        #expect(copied.value == "SAVE10")
        #expect(copied.messageID == "m-1")
    }

    @Test func couponAlongsideADeepLinkIsCopiedFirstThenNavigates() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap,
            payload: HandlingFixtures.native(action: .deepLink(url: "myapp://sale"), coupon: "SPRING"),
            appState: .background)
        #expect(decision.route == .coupon(code: "SPRING", then: .deepLink(url: "myapp://sale")))
        #expect(decision.events.map(\.type) == [.open, .deeplinkOpen])
    }

    @Test func couponCopiedForAPushThatIsNotOursRecordsNothing() {
        let handler = HandlingFixtures.handler { $0.handledDialects = [] }
        #expect(handler.couponCopied(code: "X", payload: HandlingFixtures.brazeAlert) == nil)
    }

    @Test func dismissRecordsDismiss() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: NotificationHandler.dismissActionIdentifier, payload: HandlingFixtures.native(),
            appState: .background)
        #expect(decision.isOurs)
        #expect(decision.route == .none)
        #expect(decision.events.map(\.type) == [.dismiss])
    }

    static let buttons: [PushButton] = [
        PushButton(id: "open", title: "Open", action: .openApp),
        PushButton(id: "web", title: "Read", action: .web(url: "https://example.com/read", inApp: true)),
        PushButton(id: "link", title: "Track", action: .deepLink(url: "myapp://track")),
        PushButton(id: "bad-link", title: "Bad", action: .deepLink(url: "other://x")),
        PushButton(id: "reply", title: "Reply", action: .reply(placeholder: "Say", submitTitle: "Send")),
        PushButton(id: "later", title: "Later", action: .dismiss),
        PushButton(id: "like", title: "Like", action: .custom),
    ]

    struct ButtonCase: Sendable, CustomTestStringConvertible {
        var id: String
        var route: RoutedAction
        var events: [EventType]
        var testDescription: String { id }
    }

    @Test(arguments: [
        ButtonCase(id: "open", route: .openApp(reason: nil), events: [.action]),
        ButtonCase(id: "web", route: .web(url: "https://example.com/read", inApp: true), events: [.action, .linkOpen]),
        ButtonCase(id: "link", route: .deepLink(url: "myapp://track"), events: [.action, .deeplinkOpen]),
        ButtonCase(id: "later", route: .none, events: [.action]),
        ButtonCase(id: "like", route: .custom(buttonID: "like"), events: [.action]),
        ButtonCase(id: "app-own", route: .custom(buttonID: "app-own"), events: [.action]),
    ])
    func buttonRoutesAndEvents(_ testCase: ButtonCase) {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: testCase.id, payload: HandlingFixtures.native(buttons: Self.buttons),
            appState: .background)
        #expect(decision.isOurs)
        #expect(decision.route == testCase.route)
        #expect(decision.events.map(\.type) == testCase.events)
        #expect(decision.events.allSatisfy { $0.actionID == testCase.id })
    }

    /// The `action` event says whether the button brought the app forward: the foreground option the SDK
    /// registers it with. The app's own buttons, whose options the payload does not give, say nothing.
    @Test(
        arguments: [
            ("open", true), ("web", true), ("link", true), ("bad-link", true), ("later", false), ("like", false),
            ("app-own", nil),
        ] as [(String, Bool?)])
    func theActionEventSaysWhetherTheButtonOpenedTheApp(_ id: String, _ opensApp: Bool?) throws {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: id, payload: HandlingFixtures.native(buttons: Self.buttons), appState: .background)
        let action = try #require(decision.events.first { $0.type == .action })
        #expect(action.opensApp == opensApp)
        #expect(action.json["opens_app"] == opensApp.map(JSONValue.bool))
        // As it travels: the wire form reads back the same.
        #expect(try TidingsEvent(json: action.json).opensApp == opensApp)
        let registered = Self.buttons.first { $0.id == id }.map(ActionDefinition.init(button:))
        #expect(registered?.options.contains(.foreground) == opensApp)
    }

    @Test func disallowedDeepLinkButtonOpensTheAppAndRecordsOnlyTheAction() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: "bad-link", payload: HandlingFixtures.native(buttons: Self.buttons),
            appState: .background)
        guard case .openApp(let reason) = decision.route else {
            Issue.record("expected openApp, got \(decision.route)")
            return
        }
        #expect(reason?.contains("other") == true)
        #expect(decision.events.map(\.type) == [.action])
    }

    @Test func replyTextGoesToTheAppButNotToAnalyticsByDefault() throws {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: "reply", userText: "my secret", payload: HandlingFixtures.native(buttons: Self.buttons),
            appState: .background)
        #expect(decision.route == .reply(buttonID: "reply", text: "my secret"))
        let event = try #require(decision.events.first)
        #expect(decision.events.count == 1)
        #expect(event.type == .reply)
        #expect(event.actionID == "reply")
        #expect(event.attributes == nil)
        #expect(event.value == nil)
    }

    @Test func replyTextGoesToAnalyticsWhenTheAppAllowsIt() throws {
        let handler = HandlingFixtures.handler { $0.sendsReplyTextToAnalytics = true }
        let decision = handler.handleResponse(
            actionIdentifier: "reply", userText: "hello", payload: HandlingFixtures.native(buttons: Self.buttons),
            appState: .background)
        #expect(try #require(decision.events.first).attributes == ["text": "hello"])
    }

    @Test(arguments: [
        NotificationHandler.defaultActionIdentifier, NotificationHandler.dismissActionIdentifier, "reply",
    ])
    func responseToAPushThatIsNotOursHasNoEvents(identifier: String) {
        let handler = HandlingFixtures.handler { $0.handledDialects = [.moengage] }
        let decision = handler.handleResponse(
            actionIdentifier: identifier, payload: HandlingFixtures.brazeAlert, appState: .background)
        #expect(!decision.isOurs)
        #expect(decision.events.isEmpty)
        #expect(decision.route == .none)
    }

    @Test(arguments: [JSONValue.string("text"), .array([]), .null])
    func responseToANonObjectPayloadIsNotOurs(payload: JSONValue) {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, payload: payload, appState: .background)
        #expect(!decision.isOurs)
        #expect(decision.events.isEmpty)
    }

    @Test func eventIDsAreTakenFromTheInjectedSource() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: tap, payload: HandlingFixtures.native(action: .deepLink(url: "myapp://a")),
            appState: .background)
        #expect(
            decision.events.map(\.eventID.uuidString) == [
                "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002",
            ])
    }
}
