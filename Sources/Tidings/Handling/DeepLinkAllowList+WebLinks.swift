import Foundation

extension DeepLinkAllowList {
    /// Whether `url` is a web page an in-app browser can show: `http` or `https` with a host.
    ///
    /// - Important: `SFSafariViewController` raises an exception (the app crashes) for any other scheme, so
    ///   nothing else may reach it.
    public static func isBrowsable(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return false }
        return !(components.host ?? "").isEmpty
    }

    /// Why `url` may not be handed to the system to open outside the app, or nil when it may: web pages
    /// (``isBrowsable(_:)``) and the allow-list's schemes only. A push is untrusted input, so `tel:`,
    /// `sms:`, another app's scheme or `javascript:` never reach `UIApplication.open` unless the app named
    /// the scheme.
    public func externalRejectionReason(_ url: String) -> String? {
        if Self.isBrowsable(url) { return nil }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            !scheme.isEmpty
        else { return "not an absolute URL: \(url)" }
        if schemes.contains(scheme) { return nil }
        return "scheme \(scheme) is neither http(s) nor in the deep-link allow-list"
    }
}
