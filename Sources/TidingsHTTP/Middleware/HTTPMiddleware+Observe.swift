import Foundation
import TidingsMetrics
import TidingsModel

extension HTTPMiddleware {
    /// One `info` record per request, once its body has been produced: method, route pattern, path,
    /// status, body bytes, duration and request id. Headers are never logged (they carry keys).
    public static func accessLog(_ logger: Logger, routes: RoutePatterns) -> HTTPMiddleware {
        HTTPMiddleware { next in
            { request in
                let start = ContinuousClock.now
                let route = routes.pattern(for: request)
                let response = try await next(request)
                return response.onBodyEnd { bytes, failed in
                    logRequest(
                        logger, request, route: route, response.status, bytes: bytes, failed: failed, since: start)
                }
            }
        }
    }

    /// The access log record of one request; nothing is formatted when `info` is off.
    static func logRequest(
        _ logger: Logger, _ request: HTTPRequest, route: String, _ status: Int, bytes: Int, failed: Bool,
        since start: ContinuousClock.Instant
    ) {
        guard logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - start
        var metadata: Logger.Metadata = [
            "method": request.method, "route": route, "path": request.path, "status": String(status),
            "bytes": String(bytes), "duration_ms": String(format: "%.3f", elapsed.seconds * 1000),
            "request_id": request.requestID,
        ]
        if failed { metadata["stream"] = "failed" }
        logger.info("request", metadata: metadata)
    }

    /// Counts requests by method, route pattern and status, and times them per route:
    /// `tidings_http_requests_total`, `tidings_http_request_duration_seconds`,
    /// `tidings_http_requests_in_flight`.
    public static func metrics(_ registry: MetricsRegistry, routes: RoutePatterns) -> HTTPMiddleware {
        let recorder = RequestMetrics(registry: registry)
        return HTTPMiddleware { next in
            { request in
                let start = ContinuousClock.now
                let route = routes.pattern(for: request)
                recorder.began()
                let response: HTTPResponse
                do {
                    response = try await next(request)
                } catch {
                    recorder.abandoned()
                    throw error
                }
                return response.onBodyEnd { _, _ in
                    recorder.ended(method: request.method, route: route, status: response.status, since: start)
                }
            }
        }
    }
}

/// The request series of ``HTTPMiddleware/metrics(_:routes:)``, with the handles of each label set kept,
/// so that a request costs a dictionary lookup rather than rendering and sorting its labels.
final class RequestMetrics: Sendable {
    private struct SeriesKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private let registry: MetricsRegistry
    private let inFlight: Gauge
    private let series = LockedBox([SeriesKey: (requests: Counter, duration: Histogram)]())

    init(registry: MetricsRegistry) {
        self.registry = registry
        inFlight = registry.gauge(name: "tidings_http_requests_in_flight", help: "HTTP requests being handled now.")
    }

    /// A request is being handled.
    func began() { inFlight.increment() }

    /// A request ended without a response (its handler threw past the pipeline).
    func abandoned() { inFlight.decrement() }

    /// A request was answered with `status`; its duration counts from `start`.
    func ended(method: String, route: String, status: Int, since start: ContinuousClock.Instant) {
        inFlight.decrement()
        // Clients choose the method: an unknown one must not mint new series.
        let key = SeriesKey(method: knownMethods.contains(method) ? method : "other", route: route, status: status)
        let handles =
            series.withLock { $0[key] }
            ?? {
                let made = (
                    requests: registry.counter(
                        name: "tidings_http_requests_total", help: "HTTP requests answered, by route and status.",
                        labels: ["method": key.method, "route": route, "status": String(status)]),
                    duration: registry.histogram(
                        name: "tidings_http_request_duration_seconds",
                        help: "Time from request to the end of the response body, by route.",
                        labels: ["method": key.method, "route": route])
                )
                series.withLock { $0[key] = made }
                return made
            }()
        handles.requests.increment()
        handles.duration.observe(ContinuousClock.now - start)
    }
}

private let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

extension HTTPResponse {
    /// This response, calling `action(bytes, failed)` once its body has been produced: at once for
    /// bytes, when the producer returns or throws for a stream.
    func onBodyEnd(_ action: @escaping @Sendable (_ bytes: Int, _ failed: Bool) -> Void) -> HTTPResponse {
        switch content {
        case .bytes(let data):
            action(data.count, false)
            return self
        case .stream(let stream):
            var response = self
            response.content = .stream(
                HTTPBodyStream { writer in
                    let counting = CountingBodyWriter(writer)
                    do {
                        try await stream.produce(counting)
                    } catch {
                        action(counting.count, true)
                        throw error
                    }
                    action(counting.count, false)
                })
            return response
        }
    }
}

/// Passes pieces through and counts their bytes.
final class CountingBodyWriter: HTTPBodyWriter, Sendable {
    private let inner: any HTTPBodyWriter
    private let total = LockedBox(0)

    init(_ inner: any HTTPBodyWriter) { self.inner = inner }

    var count: Int { total.withLock { $0 } }

    func write(_ data: Data) async throws {
        try await inner.write(data)
        total.withLock { $0 += data.count }
    }
}
