extension TidingsClient {
    /// A scene connected (`scene(_:willConnectTo:options:)`): handles the notification response and the
    /// URLs it was launched with.
    ///
    /// The response is handled as the delegate's `didReceive` would (iOS may report the same tap there too:
    /// its request identifier makes the second one a repeat). Allowed URLs become deep links, held until
    /// ``ready()`` like a tap.
    public func handleLaunch(_ launch: SceneLaunch) -> LaunchHandling {
        var routes: [PendingRoute] = []
        var handled: HandledResponse?
        if let response = launch.response {
            let result = handleResponse(
                actionIdentifier: response.actionIdentifier, userText: response.userText, userInfo: response.userInfo,
                appState: isReady ? .background : .terminated, requestIdentifier: response.requestIdentifier)
            if let route = result.routeToPerform { routes.append(PendingRoute(route, userInfo: response.userInfo)) }
            handled = result
        }
        var otherURLs: [String] = []
        for url in launch.urls {
            let decision = handleOpenURL(url)
            guard decision.isOurs else {
                otherURLs.append(url)
                continue
            }
            if case .performNow(let route) = submit(PendingRoute(decision.route), key: nil) {
                routes.append(PendingRoute(route))
            }
        }
        return LaunchHandling(response: handled, routesToPerform: routes, otherURLs: otherURLs)
    }
}
