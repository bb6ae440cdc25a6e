import Foundation
import TidingsMetrics
import TidingsModel

/// Routes a request to a plain handler: the answer to compute and where, or nil when the request must go
/// through the asynchronous pipeline instead.
public typealias ImmediateRequestHandler = @Sendable (HTTPRequest) -> PlainAnswer?

/// A routed request's answer, computed by a plain call on the thread the route asks for.
public struct PlainAnswer: Sendable {
    public var runsOn: SynchronousExecution
    public var respond: @Sendable () -> HTTPResponse

    public init(runsOn: SynchronousExecution, respond: @escaping @Sendable () -> HTTPResponse) {
        self.runsOn = runsOn
        self.respond = respond
    }
}

extension HTTPMiddleware {
    /// The standard pipeline for the routes declared with an ``ImmediateHTTPHandler``: the same request id,
    /// access log, metrics and error rendering as ``standard(router:logger:metrics:handlerTimeout:)``, run
    /// as one plain call, with the route matched once.
    ///
    /// Returns nil for every other request (unknown paths included), which the server then hands to the
    /// asynchronous pipeline. There is no handler timeout here: a plain handler is bounded by its own work
    /// (store calls wait at most the store's busy timeout). The request's time is measured from here, so
    /// it includes any wait for a worker thread.
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
            let (pattern, routed) = (route.pattern, request)
            return PlainAnswer(runsOn: route.immediateRunsOn) {
                var response: HTTPResponse
                do {
                    response = try immediate(routed)
                } catch {
                    response = render(error, of: routed, logger: logger)
                }
                let status = response.status
                response = response.onBodyEnd { bytes, failed in
                    recorder.ended(method: routed.method, route: pattern, status: status, since: start)
                    logRequest(logger, routed, route: pattern, status, bytes: bytes, failed: failed, since: start)
                }
                response.headers["X-Request-Id"] = routed.requestID
                return response
            }
        }
    }
}
