import Foundation

/// Which URLs the app agrees to open as deep links: custom schemes, and hosts for universal links.
///
/// A push is untrusted input: without an allow-list anyone who can send to the app could make it open any
/// URL scheme it can reach. The empty list (the default) allows nothing, so deep links fall back to opening
/// the app until the app names its schemes and hosts.
///
/// ```swift
/// let list = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com", "*.example.com"])
/// list.allows("myapp://orders/42")               // true
/// list.allows("https://shop.example.com/sale")   // true
/// list.allows("https://evil.test/")              // false
/// ```
public struct DeepLinkAllowList: Sendable, Hashable {
    /// Custom URL schemes (lowercase, without `://`) allowed with any host.
    public var schemes: Set<String>
    /// Hosts allowed for `https` (universal links); `*.example.com` allows every subdomain of `example.com`.
    public var hosts: Set<String>

    public init(schemes: Set<String> = [], hosts: Set<String> = []) {
        self.schemes = Set(schemes.map { $0.lowercased() })
        self.hosts = Set(hosts.map { $0.lowercased() })
    }

    /// Whether `url` may be opened as a deep link.
    public func allows(_ url: String) -> Bool {
        rejectionReason(url) == nil
    }

    /// Why `url` may not be opened, or nil when it may.
    public func rejectionReason(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            !scheme.isEmpty
        else {
            return "not an absolute URL: \(url)"
        }
        if schemes.contains(scheme) { return nil }
        guard scheme == "https" else { return "scheme \(scheme) is not in the deep-link allow-list" }
        guard let host = components.host?.lowercased(), !host.isEmpty else { return "https URL without a host" }
        if hosts.contains(host) { return nil }
        for pattern in hosts where pattern.hasPrefix("*.") {
            if host.hasSuffix(pattern.dropFirst(1)) { return nil }
        }
        return "host \(host) is not in the deep-link allow-list"
    }
}
