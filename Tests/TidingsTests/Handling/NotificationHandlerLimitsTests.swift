import Foundation
import Testing
import Tidings
import TidingsTesting

@Suite struct NotificationHandlerLimitsTests {
    @Test func overlongURLIsCutInTheEventButWholeInTheRoute() throws {
        let url = "myapp://x/" + String(repeating: "é", count: 3000)
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier,
            payload: HandlingFixtures.native(action: .deepLink(url: url)), appState: .background)
        #expect(decision.route == .deepLink(url: url))
        let value = try #require(decision.events.last?.value)
        #expect(value.utf8.count <= EventLimits.default.maximumFieldBytes)
        #expect(value.utf8.count >= EventLimits.default.maximumFieldBytes - 1)
        #expect(url.hasPrefix(value))
        try decision.events.last?.validate(now: HandlingFixtures.now.millisecondsSince1970)
    }

    @Test func overlongReplyTextIsCutWhenSentToAnalytics() throws {
        let handler = HandlingFixtures.handler {
            $0.sendsReplyTextToAnalytics = true
            $0.maximumFieldBytes = 5
        }
        let buttons = [PushButton(id: "r", title: "R", action: .reply(placeholder: nil, submitTitle: nil))]
        let decision = handler.handleResponse(
            actionIdentifier: "r", userText: "abc😀def", payload: HandlingFixtures.native(buttons: buttons),
            appState: .background)
        #expect(decision.route == .reply(buttonID: "r", text: "abc😀def"))
        #expect(try #require(decision.events.first).attributes == ["text": "abc"])
    }

    @Test func rejectedDeepLinkIsLogged() {
        let log = InMemoryLogHandler()
        let handler = HandlingFixtures.handler {
            $0.logger = Logger(label: "test", level: .trace, handler: log)
        }
        _ = handler.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier,
            payload: HandlingFixtures.native(action: .deepLink(url: "evil://x")), appState: .background)
        #expect(log.lines.contains { $0.contains("evil") })
    }

    @Test(arguments: [
        NotificationHandler.defaultActionIdentifier, NotificationHandler.dismissActionIdentifier, "web", "reply", "x",
    ])
    func everyResponseEventPassesValidation(identifier: String) throws {
        let buttons = [
            PushButton(id: "web", title: "W", action: .web(url: "https://example.com", inApp: false)),
            PushButton(id: "reply", title: "R", action: .reply(placeholder: nil, submitTitle: nil)),
        ]
        let payload = HandlingFixtures.native(action: .deepLink(url: "myapp://a"), buttons: buttons)
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: identifier, userText: "t", payload: payload, appState: .background)
        #expect(!decision.events.isEmpty)
        for event in decision.events { try event.validate(now: HandlingFixtures.now.millisecondsSince1970) }
    }

    @Test func pushWithoutMessageIDIsRoutedButRecordsNothing() {
        let plain: JSONValue = ["aps": ["alert": "hi", "content-available": 1], "deeplink": "x"]
        let handler = HandlingFixtures.handler()
        let response = handler.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, payload: plain, appState: .background)
        #expect(response.isOurs)
        #expect(response.route == .openApp(reason: nil))
        #expect(response.events.isEmpty)
        #expect(handler.handleIncoming(payload: plain).deliveryCandidate == nil)
        #expect(handler.handleBackground(payload: plain).events.isEmpty)
        #expect(handler.couponCopied(code: "c", payload: plain) == nil)
    }

    @Test func responseToAnInternalPushRecordsNothing() {
        let decision = HandlingFixtures.handler().handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier,
            payload: HandlingFixtures.native(isInternal: true), appState: .background)
        #expect(decision.isOurs)
        #expect(decision.events.isEmpty)
        #expect(decision.route == .none)
    }
}
