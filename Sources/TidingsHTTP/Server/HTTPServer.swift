import Foundation
import TidingsMetrics
import TidingsModel

/// The HTTP/1.1 server of `tidingsd`: network threads, each a readiness loop over its connections
/// (``ConnectionLoop``: epoll on Linux, poll(2) on Darwin or when asked for, ``ReadinessBackend``), in
/// front of one ``HTTPHandler``. Connections are accepted by one thread
/// (``ConnectionAcceptor``) and dealt out to the network threads in turn, so that connections opened together
/// do not pile up on one of them.
///
/// The server parses requests itself (``RequestHeadParser``, ``ChunkedBodyDecoder``), so that every answer
/// it gives, a malformed request's included, is the JSON error every handler gives.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), handler: handler, logger: logger)
/// let port = try server.start()
/// ...
/// await server.shutdown()
/// ```
///
/// Once a request is read in full, the server first offers it to the immediate handler, if one was given
/// (``HTTPMiddleware/standardImmediate(router:logger:metrics:)``): a route declared
/// ``HTTPRoute/immediate(_:_:_:)`` is answered right there, on the network thread, with no task and no
/// thread hand-off; one declared ``HTTPRoute/blocking(_:_:_:)`` runs on one of
/// ``Configuration/workerThreadCount`` worker threads, so the network thread reads other connections while
/// it waits on the store. Every other request runs its handler in a Swift task. Either way the connection
/// waits for its response without holding its network thread.
///
/// Limits, and what a client sees when it passes one (every answer the JSON error body):
/// - body above ``Configuration/maximumBodyBytes``: `413 payload_too_large`. A declared `Content-Length`
///   above the limit is answered before any body is read (and before `100 Continue`); a chunked body as soon
///   as a chunk's size takes it past the limit. The connection is closed after the answer.
/// - a path and query above ``Configuration/connectionMemoryLimit``: `414 uri_too_long`; request line plus
///   headers above it, or more than 200 header lines: `431 headers_too_large`.
/// - a path or query parameter whose percent-escapes are not UTF-8: `400 invalid_parameter` naming it.
/// - a request line or header line that does not parse, a folded header line, a `Content-Length` that is not
///   a number, malformed chunks: `400` (`malformed_request_line`, `malformed_header`, `invalid_content_length`,
///   `malformed_chunked_body`); an HTTP version other than 1.0 and 1.1: `505 http_version_not_supported`.
/// - framing two parsers could read differently (no `Host`, two lengths, a length with chunks, a coding
///   other than chunked): `400` or `501` (``RequestFraming``).
///   After any of these the connection is closed, since where the next request would start is unknown.
/// - a client silent for ``Configuration/connectionTimeout`` (reading a request, idle between requests, or
///   not reading its response): the connection is closed.
/// - a request whose headers take longer than ``Configuration/requestHeaderTimeout`` from its first
///   byte, or whose body arrives slower than ``Configuration/minimumBodyBytesPerSecond`` after
///   ``Configuration/requestBodyGracePeriod``: `408 request_timeout` and the connection is closed,
///   however steadily the bytes trickle (``ConnectionWatch``).
/// - more than ``Configuration/maximumConnectionsPerAddress`` from one client address: the new
///   connection is accepted and closed at once, with no answer.
/// - more than ``Configuration/maximumConnections`` open: the server stops accepting, so new
///   connections wait in the kernel's listen backlog; while one waits, the connection idle the longest,
///   else the request read the longest, is closed to make room (``ConnectionWatch/makeRoom(now:)``).
///   A connection whose request is read in full is never closed for it.
/// - a client that reads its response slower than ``Configuration/minimumResponseBytesPerSecond`` once its writes
///   have waited on it for ``Configuration/responseGracePeriod``: the connection is closed, the response cut short,
///   however steadily the client reads a little (an idle timeout that each byte restarts would never fire).
/// - more than ``Configuration/maximumRequestsPerConnection`` requests on one connection, or a connection older than
///   ``Configuration/maximumConnectionAge``: the last response carries `Connection: close` and the connection is
///   closed after it.
/// - a handler slower than the timeout of the pipeline: `503 timeout` (see ``HTTPMiddleware/timeout(_:)``).
///   Immediate routes have no such timeout: they run only once the whole request is read, and are bounded
///   by their own work (a store call waits at most the store's busy timeout); while one waits, the
///   connections of the other network threads are served.
/// - a streamed body with no write for ``Configuration/handlerTimeout``: the body is ended as failed
///   (the chunked encoding is left unterminated, so the client can tell).
///
/// A connection closed after its response has its write side shut first, and what the client still sends
/// is read and dropped for up to two seconds, so that the close does not reset the connection before the
/// client has read the answer.
///
/// Not covered here: TLS (put a proxy in front) and HTTP/2.
public final class HTTPServer: Sendable {
    /// How the network threads wait for their sockets.
    public enum ReadinessBackend: String, Sendable, CaseIterable {
        /// Linux's epoll, edge-triggered: the default there. Only on Linux (``HTTPServer/start()`` throws
        /// `unsupported_backend` elsewhere).
        case epoll
        /// poll(2): the default on Darwin (macOS), and available on Linux, where CI runs the server on both.
        /// Each wait costs time in proportion to the thread's connections, so on Linux prefer epoll.
        case poll

        /// epoll on Linux, poll elsewhere, unless the environment variable `TIDINGS_HTTP_READINESS` names one
        /// (`epoll` or `poll`): so that a whole test run, or a `tidingsd`, can be switched without new code.
        public static var platformDefault: ReadinessBackend {
            if let named = ProcessInfo.processInfo.environment["TIDINGS_HTTP_READINESS"],
                let backend = ReadinessBackend(rawValue: named.lowercased())
            {
                return backend
            }
            #if os(Linux)
                return .epoll
            #else
                return .poll
            #endif
        }
    }

    /// Where the server listens and the limits it enforces.
    public struct Configuration: Sendable, Equatable {
        /// An IPv4 or IPv6 literal (`127.0.0.1`, `0.0.0.0`, `::1`).
        public var host: String
        /// 0 picks a free port; ``HTTPServer/start()`` returns the one bound.
        public var port: Int
        /// The largest request body accepted (1 MiB of payload plus room for the envelope).
        public var maximumBodyBytes: Int
        /// The largest request line plus headers read (`414` or `431` past it). Each connection's buffer
        /// grows to it only when a request needs it.
        public var connectionMemoryLimit: Int
        /// An idle or silent connection is closed after this long (whole seconds).
        public var connectionTimeout: Duration
        /// How long the standard pipeline lets a handler work before answering 503, and how long a
        /// streamed body may go without a write before the server ends it (as failed).
        public var handlerTimeout: Duration
        public var maximumConnections: Int
        /// Network threads; defaults to three per core (at most 256). They also run the immediate routes.
        public var threadCount: Int
        /// Threads for the routes declared ``HTTPRoute/blocking(_:_:_:)``, such as event batches, whose store
        /// writes wait for a group commit: as many can wait at once, and join one commit, as there are threads.
        public var workerThreadCount: Int
        /// How long ``HTTPServer/shutdown()`` waits for requests in flight.
        public var shutdownGracePeriod: Duration
        /// A request's line and headers must arrive within this long of its first byte, however steadily
        /// they trickle; past it the connection is answered `408` and closed. An idle keep-alive
        /// connection (no byte of a next request) is governed by ``connectionTimeout`` only.
        public var requestHeaderTimeout: Duration
        /// How long a body may take before ``minimumBodyBytesPerSecond`` applies: its deadline is this
        /// plus one second per `minimumBodyBytesPerSecond` bytes received, counted from the headers.
        public var requestBodyGracePeriod: Duration
        /// The slowest body accepted once the grace period is over; 0 gives bodies no deadline but
        /// ``connectionTimeout``.
        public var minimumBodyBytesPerSecond: Int
        /// Connections one client address may hold open at once: past it a new connection is accepted and
        /// closed at once. 0 sets no cap. Behind a proxy every connection has the proxy's address: raise it or set 0.
        public var maximumConnectionsPerAddress: Int
        /// How long a response's writes may wait on a client that does not read before
        /// ``minimumResponseBytesPerSecond`` applies.
        public var responseGracePeriod: Duration
        /// The slowest a client may read a response once the grace period is over: the time its writes wait on the
        /// client may not pass the grace period plus one second per `minimumResponseBytesPerSecond` bytes the client
        /// has acknowledged; past it the connection is closed (the response cut short). 0 leaves responses with no
        /// deadline but ``connectionTimeout``, which every byte read restarts.
        public var minimumResponseBytesPerSecond: Int
        /// The most requests one connection may make: the last one allowed is answered with `Connection: close`.
        /// 0 sets no cap.
        public var maximumRequestsPerConnection: Int
        /// How long a connection may be used: the first response after it is answered with `Connection: close`.
        /// Zero sets no cap.
        public var maximumConnectionAge: Duration
        /// How the network threads wait for their sockets: ``ReadinessBackend/platformDefault`` unless set.
        public var readinessBackend: ReadinessBackend

        public init(
            host: String = "127.0.0.1", port: Int = 8080, maximumBodyBytes: Int = 1_048_576 + 65_536,
            connectionMemoryLimit: Int = 16 * 1024, connectionTimeout: Duration = .seconds(30),
            handlerTimeout: Duration = .seconds(30), maximumConnections: Int = 1000,
            threadCount: Int = min(256, 3 * ProcessInfo.processInfo.activeProcessorCount),
            shutdownGracePeriod: Duration = .seconds(10), requestHeaderTimeout: Duration = .seconds(10),
            requestBodyGracePeriod: Duration = .seconds(10), minimumBodyBytesPerSecond: Int = 1024,
            maximumConnectionsPerAddress: Int = 64, workerThreadCount: Int = 32,
            responseGracePeriod: Duration = .seconds(10), minimumResponseBytesPerSecond: Int = 1024,
            maximumRequestsPerConnection: Int = 1000, maximumConnectionAge: Duration = .seconds(3600),
            readinessBackend: ReadinessBackend = .platformDefault
        ) {
            self.host = host
            self.port = port
            self.maximumBodyBytes = maximumBodyBytes
            self.connectionMemoryLimit = connectionMemoryLimit
            self.connectionTimeout = connectionTimeout
            self.handlerTimeout = handlerTimeout
            self.maximumConnections = maximumConnections
            self.threadCount = threadCount
            self.shutdownGracePeriod = shutdownGracePeriod
            self.requestHeaderTimeout = requestHeaderTimeout
            self.requestBodyGracePeriod = requestBodyGracePeriod
            self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
            self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
            self.workerThreadCount = workerThreadCount
            self.responseGracePeriod = responseGracePeriod
            self.minimumResponseBytesPerSecond = minimumResponseBytesPerSecond
            self.maximumRequestsPerConnection = maximumRequestsPerConnection
            self.maximumConnectionAge = maximumConnectionAge
            self.readinessBackend = readinessBackend
        }
    }

    public var configuration: Configuration { core.configuration }
    private let core: HTTPServerCore

    /// A server that runs `handler` for every request it reads.
    ///
    /// - Parameters:
    ///   - handler: usually ``HTTPMiddleware/standard(router:logger:metrics:handlerTimeout:)``.
    ///   - immediateHandler: usually ``HTTPMiddleware/standardImmediate(router:logger:metrics:)`` over the
    ///     same router; it answers the requests it can on the network thread and returns nil for the rest.
    ///   - metrics: where the server counts open connections and requests refused or cut short.
    public init(
        configuration: Configuration = Configuration(), handler: @escaping HTTPHandler,
        immediateHandler: ImmediateRequestHandler? = nil, logger: Logger, metrics: MetricsRegistry? = nil
    ) {
        core = HTTPServerCore(
            configuration: configuration, handler: handler, immediateHandler: immediateHandler, logger: logger,
            metrics: metrics)
    }

    deinit {
        // A server dropped while running stops here, on its owner's thread: the network threads hold only
        // the core, so this never runs on one of them.
        core.stopNow()
    }

    /// The port bound by ``start()``, nil before.
    public var port: Int? { core.port }

    /// True once shutdown has begun: responses then carry `Connection: close`, so that keep-alive clients
    /// move to another instance instead of sending more requests here.
    public var isDraining: Bool { core.isDraining }

    /// Requests read (at least their headers) whose response has not been sent yet.
    public var requestsInFlight: Int { core.requestsInFlight }

    /// Binds and starts serving; returns the bound port.
    ///
    /// - Throws: ``HTTPServerError`` when the host is not an IP literal, or the address cannot be bound.
    @discardableResult
    public func start() throws -> Int { try core.start() }

    /// Stops accepting, lets requests in flight finish within the grace period, then closes everything.
    ///
    /// New connections are refused from the moment this is called. Requests still running when the
    /// grace period ends lose their connection.
    public func shutdown() async { await core.shutdown() }

    /// Closes the listening socket and every connection at once.
    public func stopNow() { core.stopNow() }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `invalid_host`, `invalid_port`, `bind_failed`, `daemon_failed` (the network threads could not start),
    /// `unsupported_backend` (epoll off Linux) or `already_started`.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
