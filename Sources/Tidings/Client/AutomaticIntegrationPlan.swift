/// What the automatic integration does at launch, decided from its options and the delegate already set.
///
/// The Apple glue carries it out step by step; nothing is swizzled: the delegate proxy is an ordinary
/// `UNUserNotificationCenter.delegate` that forwards to the one it replaced.
public struct AutomaticIntegrationPlan: Sendable, Hashable {
    /// What is set as `UNUserNotificationCenter.current().delegate` now.
    public enum ExistingDelegate: Sendable, Hashable {
        /// No delegate is set.
        case unset
        /// Tidings' own proxy: the integration ran before (a second call, or a second client).
        case tidings
        /// The app's or another SDK's.
        case other
    }

    /// Set Tidings' proxy as the centre's delegate.
    public var installsProxy: Bool
    /// Keep the delegate found there as the proxy's `next`, so its pushes still reach it.
    public var chainsExistingDelegate: Bool
    /// Ask for permission now; when false, only register with APNs (the token waits for permission, read
    /// again at every foreground). Provisional authorization shows no prompt, so it is asked at launch.
    public var requestsAuthorization: Bool
    /// What to ask for.
    public var authorizationOptions: AuthorizationOptions
    /// Call `registerForRemoteNotifications()`; always, as the manual integration does.
    public var registersForRemoteNotifications: Bool

    public init(options: AutomaticIntegrationOptions, existing: ExistingDelegate) {
        // A proxy found in place is kept: replacing it would chain Tidings to itself (a forwarding loop).
        installsProxy = options.installsNotificationDelegateProxy && existing != .tidings
        chainsExistingDelegate = installsProxy && existing == .other
        requestsAuthorization = options.requestsAuthorizationAtLaunch || options.requestsProvisionalAuthorization
        authorizationOptions = options.authorizationOptions
        registersForRemoteNotifications = true
    }
}
