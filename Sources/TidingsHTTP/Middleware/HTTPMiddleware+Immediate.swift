import Foundation
import TidingsMetrics
import TidingsModel

/// Answers a request on the network thread that read it, or returns nil when the request must go through
/// the asynchronous pipeline instead.
public typealias ImmediateRequestHandler = @Sendable (HTTPRequest) -> HTTPResponse?

extension HTTPMiddleware {
    /// The standard pipeline for the routes declared with an ``ImmediateHTTPHandler``: the same request id,
    /// access log, metrics and error rendering as ``standard(router:logger:metrics:handlerTimeout:)``, run
    /// as one plain call, with the route matched once.
    ///
    /// Returns nil for every other request (unknown paths included), which the server then hands to the
    /// asynchronous pipeline. There is no handler timeout here: an immediate handler is bounded by its
    /// own work (store calls wait at most the store's busy timeout).
    public static func standardImmediate(router: Router, logger: Logger, metrics: MetricsRegistry)
        -> ImmediateRequestHandler
    {
        let recorder = RequestMetrics(registry: metrics)
        return { incoming in
            guard case .success(let (route, parameters)) = router.match(method: incoming.method, path: incoming.path),
                let immediate = route.immediate
            else { return nil }
            let start = ContinuousClock.now
            var request = incoming
            request.pathParameters = parameters
            if let offered = request.headers["X-Request-Id"], isAcceptableRequestID(offered) {
                request.requestID = offered
            }
            recorder.began()
            var response: HTTPResponse
            do {
                response = try immediate(request)
            } catch {
                response = render(error, of: request, logger: logger)
            }
            let (pattern, status, answered) = (route.pattern, response.status, request)
            response = response.onBodyEnd { bytes, failed in
                recorder.ended(method: answered.method, route: pattern, status: status, since: start)
                logRequest(logger, answered, route: pattern, status, bytes: bytes, failed: failed, since: start)
            }
            response.headers["X-Request-Id"] = request.requestID
            return response
        }
    }
}
