extension TidingsClient {
    /// The app state to stamp on events, from `UIApplication.shared.applicationState`.
    ///
    /// An active app is in the foreground. An inactive or background app before ``ready()`` is a cold start
    /// (the tap launched it: `terminated` before); after it, the app was in the background and the tap is
    /// bringing it forward (iOS reports `inactive` during that transition).
    public func appState(for state: ApplicationState) -> AppState {
        switch state {
        case .active: return .foreground
        case .inactive, .background: return isReady ? .background : .terminated
        }
    }

    /// What the performer does for `route`, under this client's allow-list.
    ///
    /// The app's own schemes (``Configuration/appURLSchemes``) always go to the app's deep-link handler:
    /// `UIApplication.open` would bring them straight back to `.onOpenURL`.
    ///
    /// - Parameter opensDeepLinksInApp: whether the app gave a deep-link handler.
    public func step(for route: RoutedAction, opensDeepLinksInApp: Bool) -> RouteStep {
        RouteStep(
            route: route, allowList: configuration.deepLinks, appSchemes: configuration.appURLSchemes,
            opensDeepLinksInApp: opensDeepLinksInApp)
    }
}
