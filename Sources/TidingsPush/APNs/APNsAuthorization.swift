import Foundation

/// Supplies the `authorization` header of APNs requests (token-based: `bearer <ES256 JWT>`).
///
/// - Important: Apple refuses a provider token younger than 20 minutes being replaced too often
///   (`TooManyProviderTokenUpdates`) and older than 60 minutes (`ExpiredProviderToken`): share one token
///   per key across all connections and refresh it between 20 and 55 minutes of age.
public protocol APNsAuthorization: Sendable {
    /// The header value for a request sent at `now`, for example `bearer eyJhbGciOi...`.
    func authorizationHeader(now: Date) throws -> String
    /// APNs answered 403 `ExpiredProviderToken` or `InvalidProviderToken` to `header`: the next call must
    /// make a new token (once; concurrent callers share it).
    func invalidate(_ header: String)
}
