import Foundation

extension APNsEnvironment {
    /// The environment of the app's tokens, from its embedded provisioning profile.
    ///
    /// An App Store or TestFlight build carries no `embedded.mobileprovision` and always uses production;
    /// a development or ad-hoc build carries one whose `aps-environment` entitlement says which. The
    /// profile is CMS-signed, but its property list is stored as plain XML inside, so the entitlement is
    /// read from the bytes without verifying the signature (the OS already did).
    ///
    /// - Parameter provisioningProfile: The profile's bytes, or nil when the bundle has none.
    /// - Returns: nil when a profile exists but names no push environment (push not entitled).
    public static func detect(provisioningProfile: Data?) -> APNsEnvironment? {
        guard let provisioningProfile else { return .production }
        let text = String(decoding: provisioningProfile, as: UTF8.self)
        guard let key = text.range(of: "<key>aps-environment</key>") else { return nil }
        let rest = text[key.upperBound...].drop(while: { $0.isWhitespace })
        guard rest.hasPrefix("<string>"), let end = rest.range(of: "</string>") else { return nil }
        switch rest[rest.index(rest.startIndex, offsetBy: 8)..<end.lowerBound] {
        case "development": return .sandbox
        case "production": return .production
        default: return nil
        }
    }

    /// The environment of the running app: reads `embedded.mobileprovision` from `bundle`.
    public static func detect(in bundle: Bundle = .main) -> APNsEnvironment? {
        let profile = bundle.url(forResource: "embedded", withExtension: "mobileprovision").flatMap {
            try? Data(contentsOf: $0)
        }
        return detect(provisioningProfile: profile)
    }
}
