extension NotificationHandler {
    /// The person tapped the body, tapped a button, answered, or cleared a notification.
    ///
    /// | response | route | events |
    /// |---|---|---|
    /// | body, no action / open app | `.openApp` | `open` |
    /// | body, allowed deep link | `.deepLink` | `open`, `deeplink_open` |
    /// | body, disallowed deep link | `.openApp(reason:)` | `open` |
    /// | body, web (`http(s)`, or an allowed scheme outside the app) | `.web` | `open`, `link_open` |
    /// | body, web with any other scheme | `.openApp(reason:)` | `open` |
    /// | body, screen | `.screen` | `open`, `screen_open` |
    /// | body, coupon | `.coupon(then: nil)` | `open` (`coupon_copy` once copied) |
    /// | button | as its action | `action` with `opens_app` (+ `link_open`/`deeplink_open`) |
    /// | reply button | `.reply` with the text | `reply` (text only when allowed) |
    /// | dismiss | `.none` | `dismiss` |
    ///
    /// A payload without a message id (a plain APNs push) is routed but records no events: notification
    /// events must name their message.
    ///
    /// A payload `coupon` next to another body action becomes `.coupon(then:)` that action: copy first,
    /// then navigate. Button ids the payload does not list are the app's own (`.custom`).
    ///
    /// - Parameters:
    ///   - actionIdentifier: `UNNotificationResponse.actionIdentifier`.
    ///   - userText: `UNTextInputNotificationResponse.userText`, for reply buttons.
    ///   - payload: the notification's `userInfo`, as JSON.
    public func handleResponse(
        actionIdentifier: String, userText: String? = nil, payload json: JSONValue, appState: AppState
    ) -> ResponseDecision {
        let (ours, decoded) = ownership(of: json)
        guard ours, let payload = decoded, !payload.isInternal else {
            return ResponseDecision(isOurs: ours, events: [], route: .none)
        }
        var decision: ResponseDecision
        switch actionIdentifier {
        case Self.dismissActionIdentifier:
            decision = ResponseDecision(
                isOurs: true, events: [event(.dismiss, payload: payload, appState: appState)], route: .none)
        case Self.defaultActionIdentifier:
            decision = defaultTap(payload, appState: appState)
        default:
            decision = buttonTap(actionIdentifier, userText: userText, payload: payload, appState: appState)
        }
        // Events that cannot name their message would fail validation at enqueue; route anyway.
        if !Self.isAttributable(payload) { decision.events = [] }
        return decision
    }

    private func defaultTap(_ payload: PushPayload, appState: AppState) -> ResponseDecision {
        var events = [event(.open, payload: payload, appState: appState)]
        var route: RoutedAction
        switch payload.defaultAction ?? .openApp {
        case .openApp:
            route = .openApp(reason: nil)
        case .deepLink(let url):
            route = deepLinkRoute(url)
            if case .deepLink = route {
                events.append(event(.deeplinkOpen, payload: payload, appState: appState, value: url))
            }
        case .web(let url, let inApp):
            route = webRoute(url, inApp: inApp)
            if case .web = route { events.append(event(.linkOpen, payload: payload, appState: appState, value: url)) }
        case .screen(let name, let parameters):
            route = .screen(name: name, parameters: parameters)
            events.append(event(.screenOpen, payload: payload, appState: appState, value: name))
        case .coupon(let code):
            return ResponseDecision(isOurs: true, events: events, route: .coupon(code: code, then: nil))
        }
        if let code = payload.coupon {
            route = .coupon(code: code, then: route)
        }
        return ResponseDecision(isOurs: true, events: events, route: route)
    }

    private func buttonTap(
        _ identifier: String, userText: String?, payload: PushPayload, appState: AppState
    ) -> ResponseDecision {
        var actionEvent = event(.action, payload: payload, appState: appState, actionID: identifier)
        guard let button = payload.buttons.first(where: { $0.id == identifier }) else {
            // The app's own button: registered by the app, whose options the payload does not say.
            return ResponseDecision(isOurs: true, events: [actionEvent], route: .custom(buttonID: identifier))
        }
        // Whether iOS brought the app forward: the foreground option the button was registered with.
        actionEvent.opensApp = ActionDefinition(button: button).options.contains(.foreground)
        switch button.action {
        case .openApp:
            return ResponseDecision(isOurs: true, events: [actionEvent], route: .openApp(reason: nil))
        case .deepLink(let url):
            let route = deepLinkRoute(url)
            guard case .deepLink = route else {
                return ResponseDecision(isOurs: true, events: [actionEvent], route: route)
            }
            let opened = event(.deeplinkOpen, payload: payload, appState: appState, actionID: identifier, value: url)
            return ResponseDecision(isOurs: true, events: [actionEvent, opened], route: route)
        case .web(let url, let inApp):
            let route = webRoute(url, inApp: inApp)
            guard case .web = route else { return ResponseDecision(isOurs: true, events: [actionEvent], route: route) }
            let opened = event(.linkOpen, payload: payload, appState: appState, actionID: identifier, value: url)
            return ResponseDecision(isOurs: true, events: [actionEvent, opened], route: route)
        case .reply:
            let text = userText ?? ""
            let attributes: [String: JSONValue]? =
                configuration.sendsReplyTextToAnalytics ? ["text": .string(truncated(text))] : nil
            let reply = event(
                .reply, payload: payload, appState: appState, actionID: identifier, attributes: attributes)
            return ResponseDecision(isOurs: true, events: [reply], route: .reply(buttonID: identifier, text: text))
        case .dismiss:
            return ResponseDecision(isOurs: true, events: [actionEvent], route: .none)
        case .custom:
            return ResponseDecision(isOurs: true, events: [actionEvent], route: .custom(buttonID: identifier))
        }
    }

    /// `.web` for a page (in the app's browser only when `http(s)`: `SFSafariViewController` crashes on
    /// anything else), or for an allowed scheme opened outside the app; `.openApp` with the reason otherwise.
    private func webRoute(_ url: String, inApp: Bool) -> RoutedAction {
        if let reason = configuration.deepLinks.externalRejectionReason(url) {
            configuration.logger.info("web link not opened: \(reason)")
            return .openApp(reason: reason)
        }
        return .web(url: url, inApp: inApp && DeepLinkAllowList.isBrowsable(url))
    }

    /// `.deepLink` when the allow-list takes `url`, else `.openApp` with the reason.
    private func deepLinkRoute(_ url: String) -> RoutedAction {
        if let reason = configuration.deepLinks.rejectionReason(url) {
            configuration.logger.info("deep link not opened: \(reason)")
            return .openApp(reason: reason)
        }
        return .deepLink(url: url)
    }
}
