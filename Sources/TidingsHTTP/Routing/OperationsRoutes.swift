import Foundation
import TidingsMetrics

/// The routes for operators rather than apps: `GET /healthz`, `GET /readyz` and `GET /metrics`.
///
/// - `/healthz` (liveness) answers `200 {"status":"ok"}` whenever the process can answer at all. It
///   checks nothing else on purpose: a liveness failure gets the process restarted, and restarting
///   does not mend a store or a credentials file.
/// - `/readyz` (readiness) runs the ``ReadinessProbe``'s checks (cached for a moment) and answers 200
///   `{"status":"ready","checks":{...}}`, or 503 `{"status":"not_ready",...}` naming each failed check:
///   a load balancer stops sending traffic here until it passes again.
/// - `/metrics` answers the registry in the Prometheus text format. With a ``BearerToken`` it first
///   requires `Authorization: Bearer <token>` (`401 unauthorized` otherwise).
public enum OperationsRoutes {
    /// The operations routes.
    ///
    /// - Parameters:
    ///   - metrics: the registry `/metrics` exposes; nil leaves `/metrics` out (it is served elsewhere, on an
    ///     admin address).
    ///   - metricsToken: when set, the token `/metrics` requires.
    ///   - readiness: the checks behind `/readyz`; by default none, so `/readyz` is ready once the process
    ///     serves.
    public static func routes(
        metrics: MetricsRegistry?, metricsToken: BearerToken? = nil,
        readiness: ReadinessProbe = ReadinessProbe(checks: [])
    ) -> [HTTPRoute] {
        var routes = [
            HTTPRoute("GET", "/healthz") { _ in
                HTTPResponse(status: 200, headers: Self.probeHeaders, body: Data(#"{"status":"ok"}"#.utf8))
            },
            HTTPRoute("GET", "/readyz") { _ in
                let report = await readiness.report()
                return HTTPResponse(status: report.status, headers: Self.probeHeaders, body: report.jsonBody)
            },
        ]
        if let metrics {
            routes.append(
                HTTPRoute("GET", "/metrics") { request in
                    if let metricsToken, !metricsToken.isPresented(in: request.headers["Authorization"]) {
                        throw HTTPError.metricsUnauthorized
                    }
                    return HTTPResponse(
                        status: 200, headers: ["Content-Type": MetricsRegistry.contentType],
                        body: Data(metrics.exposition().utf8))
                })
        }
        return routes
    }

    /// Probes answer the state now: a cache between the prober and the server must not answer for it.
    private static let probeHeaders: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
}

extension HTTPError {
    /// `401 unauthorized` for `/metrics` without its token; says how to send one, never what it is.
    static let metricsUnauthorized = HTTPError(
        status: 401, code: "unauthorized", message: "send the metrics token as 'Authorization: Bearer <token>'",
        headers: ["WWW-Authenticate": #"Bearer realm="metrics""#])
}

extension Router {
    /// Adds ``OperationsRoutes`` to this router.
    public mutating func addOperationsRoutes(
        metrics: MetricsRegistry?, metricsToken: BearerToken? = nil,
        readiness: ReadinessProbe = ReadinessProbe(checks: [])
    ) {
        for route in OperationsRoutes.routes(metrics: metrics, metricsToken: metricsToken, readiness: readiness) {
            add(route)
        }
    }
}
