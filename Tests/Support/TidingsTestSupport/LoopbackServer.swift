import Foundation
import TidingsHTTP
import TidingsMetrics
import TidingsModel

/// A server on a free loopback port around `routes`, with the standard pipeline, for one test.
package struct LoopbackServer {
    package let server: HTTPServer
    package let port: Int
    package let metrics: MetricsRegistry
    package let logs: RecordingLogHandler

    package init(configuration: HTTPServer.Configuration = .init(), threads: Int = 2, routes: [HTTPRoute]) throws {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threadCount = threads
        let router = Router(routes: routes)
        let logs = RecordingLogHandler()
        let logger = Logger(label: "test", level: .debug, handler: logs)
        let metrics = MetricsRegistry()
        let handler = HTTPMiddleware.standard(
            router: router, logger: logger, metrics: metrics, handlerTimeout: configuration.handlerTimeout)
        server = HTTPServer(
            configuration: configuration, handler: handler,
            immediateHandler: HTTPMiddleware.standardImmediate(router: router, logger: logger, metrics: metrics),
            logger: logger, metrics: metrics)
        port = try server.start()
        self.metrics = metrics
        self.logs = logs
    }

    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
}

/// Keeps every log record in memory.
package final class RecordingLogHandler: LogHandler, Sendable {
    private let box = LockedBox([LogRecord]())

    package init() {}

    package var records: [LogRecord] { box.withLock { $0 } }

    package func emit(_ record: LogRecord) { box.withLock { $0.append(record) } }
}
