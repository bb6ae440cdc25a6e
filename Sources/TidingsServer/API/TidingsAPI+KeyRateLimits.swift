import TidingsHTTP
import TidingsStore

extension TidingsAPI {
    /// The default request rate of each kind of key.
    public struct KeyRateLimits: Sendable, Equatable {
        public var app = RateLimit(burst: 100_000, perSecond: 50_000)
        public var server = RateLimit(burst: 400, perSecond: 200)
        public var admin = RateLimit(burst: 40, perSecond: 20)

        public init() {}

        public subscript(kind: APIKeyKind) -> RateLimit {
            switch kind {
            case .app: app
            case .server: server
            case .admin: admin
            }
        }
    }
}
