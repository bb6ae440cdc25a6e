import Foundation
import TidingsMetrics

/// What the server itself counts, beside the pipeline's per-route metrics: open connections, requests
/// refused before any handler ran, and requests cut short.
struct HTTPServerMetrics: Sendable {
    let connectionsOpen: Gauge
    let refusedTooLarge: Counter
    /// By ``HTTPConnection/CloseReason`` raw value.
    let terminations: [String: Counter]
    let connectionsClosed: [ConnectionWatch.Reason: Counter]

    init(registry: MetricsRegistry) {
        connectionsOpen = registry.gauge(
            name: "tidings_http_connections_open", help: "TCP connections open to the HTTP server.")
        refusedTooLarge = registry.counter(
            name: "tidings_http_requests_refused_total",
            help: "Requests answered by the server before any handler ran, by reason.",
            labels: ["reason": "payload_too_large"])
        let reasons: [HTTPConnection.CloseReason] = [.error, .timeout, .shutdown, .readError, .clientAbort]
        terminations = Dictionary(
            uniqueKeysWithValues: reasons.map { reason in
                (
                    reason.rawValue,
                    registry.counter(
                        name: "tidings_http_requests_terminated_total",
                        help: "Requests whose connection ended before the response was complete, by reason.",
                        labels: ["reason": reason.rawValue])
                )
            })
        connectionsClosed = Dictionary(
            uniqueKeysWithValues: ConnectionWatch.Reason.allCases.map { reason in
                (
                    reason,
                    registry.counter(
                        name: "tidings_http_connections_closed_total",
                        help:
                            "Connections the server closed because a request missed a read deadline, a response "
                            + "was read too slowly, or to admit another at the connection limit, by reason.",
                        labels: ["reason": reason.rawValue])
                )
            })
    }
}
