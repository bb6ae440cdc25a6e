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
    /// Ask for provisional authorization at launch (`TidingsRequestProvisionalAuthorization`): iOS shows no
    /// prompt and delivers quietly to the Notification Centre until the person keeps or turns them off.
    public var requestsProvisionalAuthorization: Bool
    /// Ask with `providesAppNotificationSettings` (`TidingsProvidesAppNotificationSettings`): iOS then shows
    /// a link to the app's own notification settings, which the app's notification-centre delegate opens
    /// (`openSettingsFor`).
    public var providesAppNotificationSettings: Bool

    public init(
        installsNotificationDelegateProxy: Bool = true, requestsAuthorizationAtLaunch: Bool = false,
        requestsProvisionalAuthorization: Bool = false, providesAppNotificationSettings: Bool = false
    ) {
        self.installsNotificationDelegateProxy = installsNotificationDelegateProxy
        self.requestsAuthorizationAtLaunch = requestsAuthorizationAtLaunch
        self.requestsProvisionalAuthorization = requestsProvisionalAuthorization
        self.providesAppNotificationSettings = providesAppNotificationSettings
    }

    /// What to ask for whenever Tidings asks (at launch, or through `requestAuthorization()`).
    public var authorizationOptions: AuthorizationOptions {
        var options: AuthorizationOptions = [.alert, .sound, .badge]
        if requestsProvisionalAuthorization { options.insert(.provisional) }
        if providesAppNotificationSettings { options.insert(.providesAppNotificationSettings) }
        return options
    }
}

/// `UNAuthorizationOptions` as plain values, so what the integration asks for is decided on Linux.
public struct AuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let alert = AuthorizationOptions(rawValue: 1 << 0)
    public static let sound = AuthorizationOptions(rawValue: 1 << 1)
    public static let badge = AuthorizationOptions(rawValue: 1 << 2)
    /// Deliver quietly without asking; the person decides from the first notification.
    public static let provisional = AuthorizationOptions(rawValue: 1 << 3)
    /// The app has its own notification settings screen.
    public static let providesAppNotificationSettings = AuthorizationOptions(rawValue: 1 << 4)
}
