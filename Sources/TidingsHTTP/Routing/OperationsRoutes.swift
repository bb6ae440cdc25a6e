import Foundation
import TidingsMetrics

/// The routes for operators rather than apps: `GET /healthz` and `GET /metrics`.
public enum OperationsRoutes {
    /// `GET /healthz` answers `{"status":"ok"}`, or `503 {"status":"unavailable"}` when `check` throws;
    /// `GET /metrics` answers the registry in the Prometheus text format.
    public static func routes(
        metrics: MetricsRegistry, check: (@Sendable () async throws -> Void)? = nil
    ) -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/healthz") { _ in
                var healthy = true
                if let check {
                    do { try await check() } catch { healthy = false }
                }
                return HTTPResponse(
                    status: healthy ? 200 : 503, headers: ["Content-Type": "application/json"],
                    body: Data((healthy ? #"{"status":"ok"}"# : #"{"status":"unavailable"}"#).utf8))
            },
            HTTPRoute("GET", "/metrics") { _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Type": MetricsRegistry.contentType],
                    body: Data(metrics.exposition().utf8))
            },
        ]
    }
}

extension Router {
    /// Adds ``OperationsRoutes`` to this router.
    public mutating func addOperationsRoutes(
        metrics: MetricsRegistry, check: (@Sendable () async throws -> Void)? = nil
    ) {
        for route in OperationsRoutes.routes(metrics: metrics, check: check) { add(route) }
    }
}
