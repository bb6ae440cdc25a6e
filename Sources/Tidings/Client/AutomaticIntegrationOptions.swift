/// The switches of the automatic integration, from the Info.plist or code.
public struct AutomaticIntegrationOptions: Sendable, Hashable {
    /// Install Tidings' notification-centre delegate, which handles Tidings' pushes and forwards every
    /// other one (and every method it does not implement) to the delegate that was there before.
    /// `TidingsNotificationDelegateProxyEnabled` `NO` refuses it: the app then sets its own delegate and
    /// forwards as in the manual integration.
    public var installsNotificationDelegateProxy: Bool
    /// Ask for notification permission as soon as the app launches (`TidingsRequestAuthorizationAtLaunch`);
    /// off by default, since a prompt after the app explained itself is accepted more often.
    public var requestsAuthorizationAtLaunch: Bool

    public init(installsNotificationDelegateProxy: Bool = true, requestsAuthorizationAtLaunch: Bool = false) {
        self.installsNotificationDelegateProxy = installsNotificationDelegateProxy
        self.requestsAuthorizationAtLaunch = requestsAuthorizationAtLaunch
    }
}
