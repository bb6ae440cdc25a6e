import Dispatch
import Foundation
import TidingsHTTP
import TidingsModel
import TidingsServer

/// SIGTERM and SIGINT start a graceful shutdown; a second signal exits at once.
enum ShutdownSignals {
    private static let sources = LockedBox<[any DispatchSourceSignal]>([])
    private static let stopping = LockedBox(false)

    /// `servers` shut down one after the other, in order (the API first, then the admin address, which
    /// keeps answering probes meanwhile); `stopWork` runs once requests have finished (background work such
    /// as fan-out stops there); `flush` runs just before the process exits, so that the last log lines are
    /// not lost.
    static func install(
        servers: [HTTPServer], logger: Logger, stopWork: @escaping @Sendable () async -> Void = {},
        flush: @escaping @Sendable () -> Void
    ) {
        for number in [SIGTERM, SIGINT] {
            // The default action would kill the process before the dispatch source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received(number, servers: servers, logger: logger, stopWork: stopWork, flush: flush)
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    private static func received(
        _ number: Int32, servers: [HTTPServer], logger: Logger, stopWork: @escaping @Sendable () async -> Void,
        flush: @escaping @Sendable () -> Void
    ) {
        let alreadyStopping = stopping.withLock { stopping in
            defer { stopping = true }
            return stopping
        }
        if alreadyStopping {
            logger.warning("second signal: exiting now")
            flush()
            exit(1)
        }
        logger.notice(
            "shutting down",
            metadata: [
                "signal": number == SIGTERM ? "SIGTERM" : "SIGINT",
                "in_flight": String(servers.reduce(0) { $0 + $1.requestsInFlight }),
            ])
        Task {
            for server in servers { await server.shutdown() }
            await stopWork()
            logger.notice("stopped")
            flush()
            exit(0)
        }
    }
}
