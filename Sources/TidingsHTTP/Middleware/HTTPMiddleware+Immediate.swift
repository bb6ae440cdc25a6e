import Foundation
import TidingsMetrics
import TidingsModel

/// Routes a request to a plain handler: the answer to compute and where, or nil when the request must go
/// through the asynchronous pipeline instead.
public typealias ImmediateRequestHandler = @Sendable (HTTPRequest) -> PlainAnswer?

/// A routed request's answer, made by plain calls instead of a task.
public enum PlainAnswer: Sendable {
    /// Computed by a plain call on the thread the route asks for.
    case computed(runsOn: SynchronousExecution, respond: @Sendable () -> HTTPResponse)
    /// Started on the network thread; the response is handed to `reply` then, or later from another thread.
    case replied(start: @Sendable (_ reply: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
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
            guard case .success(let (route, parameters)) = router.match(method: incoming.method, path: incoming.path)
            else { return nil }
            /// The request as routed, and what turns its handler's outcome into the response sent.
            func begin() -> (HTTPRequest, @Sendable (Result<HTTPResponse, any Error>) -> HTTPResponse) {
                let start = ContinuousClock.now
                var request = incoming
                request.pathParameters = parameters
                if let offered = request.headers["X-Request-Id"], isAcceptableRequestID(offered) {
                    request.requestID = offered
                }
                recorder.began()
                let (pattern, routed) = (route.pattern, request)
                return (
                    routed,
                    { outcome in
                        var response: HTTPResponse
                        switch outcome {
                        case .success(let answer): response = answer
                        case .failure(let error): response = render(error, of: routed, logger: logger)
                        }
                        let status = response.status
                        response = response.onBodyEnd { bytes, failed in
                            recorder.ended(method: routed.method, route: pattern, status: status, since: start)
                            logRequest(
                                logger, routed, route: pattern, status, bytes: bytes, failed: failed, since: start)
                        }
                        response.headers["X-Request-Id"] = routed.requestID
                        return response
                    }
                )
            }
            if let replying = route.replying {
                let (routed, finish) = begin()
                return .replied { reply in
                    do {
                        try replying(routed) { reply(finish($0)) }
                    } catch {
                        reply(finish(.failure(error)))
                    }
                }
            }
            guard let immediate = route.immediate else { return nil }
            let (routed, finish) = begin()
            return .computed(runsOn: route.immediateRunsOn) { finish(Result { try immediate(routed) }) }
        }
    }
}
