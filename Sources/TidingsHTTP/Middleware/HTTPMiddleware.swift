import Foundation
import TidingsMetrics
import TidingsModel

/// A wrapper around a handler: it sees the request before and the response after the handler it wraps.
///
/// The server's pipeline is built from these, outermost first; this is what
/// ``standard(router:logger:metrics:handlerTimeout:)`` returns:
///
/// ```swift
/// let routes = RoutePatterns(router: router)
/// let handler = HTTPMiddleware.chain(
///     [.requestID(), .accessLog(logger, routes: routes), .metrics(registry, routes: routes),
///      .errorRendering(logger), .timeout(.seconds(30))],
///     around: router.handler)
/// ```
///
/// In-process tests can call that handler directly: errors come back rendered as they would over HTTP.
public struct HTTPMiddleware: Sendable {
    public let wrap: @Sendable (@escaping HTTPHandler) -> HTTPHandler

    public init(_ wrap: @escaping @Sendable (@escaping HTTPHandler) -> HTTPHandler) {
        self.wrap = wrap
    }

    /// `handler` wrapped by every middleware, the first in the list outermost.
    public static func chain(_ middlewares: [HTTPMiddleware], around handler: @escaping HTTPHandler) -> HTTPHandler {
        middlewares.reversed().reduce(handler) { inner, middleware in middleware.wrap(inner) }
    }

    /// The standard pipeline of `tidingsd` around `router`: request id, access log, metrics,
    /// error rendering and the handler timeout, then `inner` (innermost last), whose errors are rendered too.
    public static func standard(
        router: Router, logger: Logger, metrics: MetricsRegistry, handlerTimeout: Duration,
        inner: [HTTPMiddleware] = []
    ) -> HTTPHandler {
        let routes = RoutePatterns(router: router)
        return chain(
            [
                .requestID(), .accessLog(logger, routes: routes), .metrics(metrics, routes: routes),
                .errorRendering(logger), .timeout(handlerTimeout),
            ] + inner,
            around: router.handler)
    }
}

/// Names the route pattern of a request for logs and metric labels; `unmatched` when no route's path matches.
public struct RoutePatterns: Sendable {
    public static let unmatched = "unmatched"

    private let router: Router

    public init(router: Router) {
        self.router = router
    }

    /// The route's pattern; for a method the path does not allow (405), the path's pattern all the same,
    /// so that labels stay few and meaningful.
    public func pattern(for request: HTTPRequest) -> String {
        router.pattern(method: request.method, path: request.path) ?? router.pathPattern(path: request.path)
            ?? Self.unmatched
    }
}
