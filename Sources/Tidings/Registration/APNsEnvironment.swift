/// Which APNs environment issued the token: `sandbox` for development builds, `production` otherwise.
///
/// - Important: a sandbox token sent to the production endpoint (or the reverse) fails with
///   `BadDeviceToken`, so the environment must match the app's `aps-environment` entitlement.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case sandbox
    case production
}
