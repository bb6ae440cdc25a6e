import CMicroHTTPD
import Foundation
import TidingsMetrics
import TidingsModel

/// What ``HTTPServer`` does, and all that libmicrohttpd's callbacks, the handlers' tasks and the streamed
/// bodies reach: the daemon, the suspended connections, the counters.
///
/// It is apart from ``HTTPServer`` so that nothing but the server's owner holds the server. A callback that
/// held the last reference to the server would run its deinit on a network thread, and the deinit stops the
/// daemon, which must join that very thread: libmicrohttpd aborts ("Failed to join a thread"). The callbacks
/// hold this object instead; the server's deinit stops the daemon, on its owner's thread, before it lets go.
final class HTTPServerCore: @unchecked Sendable {
    // @unchecked: `daemon` and the sets below are guarded by `lock`; MHD serialises callbacks per connection.

    let configuration: HTTPServer.Configuration
    let handler: HTTPHandler
    let immediateHandler: ImmediateRequestHandler?
    let logger: Logger
    let metrics: HTTPServerMetrics?
    /// The header and body deadlines of every open connection.
    let watch: ConnectionWatch

    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var acceptor: ConnectionAcceptor?
    /// Runs the blocking routes while the server runs: started by the first of them, nil when stopped.
    private var workers: WorkerThreadPool?
    private var boundPort: Int?
    /// Set once shutdown closes connections: after it no connection is resumed again.
    private var closing = false
    /// Connections suspended now (waiting for a handler or for a streamed body's next piece).
    private var suspended: [ObjectIdentifier: ConnectionState] = [:]
    private let inFlight = LockedBox(0)
    /// Connections handed to libmicrohttpd and not yet closed: counted up by ``ConnectionAcceptor``, down
    /// by libmicrohttpd's close notification.
    let openConnections = LockedBox(0)
    private let drainingBox = LockedBox(false)

    init(
        configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler,
        immediateHandler: ImmediateRequestHandler?, logger: Logger, metrics: MetricsRegistry?
    ) {
        self.configuration = configuration
        self.handler = handler
        self.immediateHandler = immediateHandler
        self.logger = logger
        let serverMetrics = metrics.map(HTTPServerMetrics.init(registry:))
        self.metrics = serverMetrics
        let limits = ConnectionWatch.Limits(
            headerTimeout: configuration.requestHeaderTimeout, bodyGracePeriod: configuration.requestBodyGracePeriod,
            minimumBodyBytesPerSecond: configuration.minimumBodyBytesPerSecond)
        watch = ConnectionWatch(limits: limits) { reason in
            serverMetrics?.connectionsClosed[reason]?.increment()
            var metadata = ["reason": reason.rawValue]
            if let status = reason.status { metadata["status"] = String(status) }
            logger.info("connection closed", metadata: metadata)
        }
    }

    /// The port bound by ``start()``, nil before.
    var port: Int? { lock.withLock { boundPort } }

    /// True once shutdown has begun: responses then carry `Connection: close`, so that keep-alive clients
    /// move to another instance instead of sending more requests here.
    var isDraining: Bool { drainingBox.withLock { $0 } }

    /// Requests read (at least their headers) whose response has not been sent yet.
    var requestsInFlight: Int { inFlight.withLock { $0 } }

    /// Binds and starts serving; returns the bound port.
    ///
    /// - Throws: ``HTTPServerError`` when the host is not an IP literal, or the address cannot be bound.
    @discardableResult
    func start() throws -> Int {
        try lock.withLock {
            guard daemon == nil else {
                throw HTTPServerError(code: "already_started", message: "the server is running")
            }
            closing = false
            drainingBox.withLock { $0 = false }
            let acceptor = try ConnectionAcceptor(host: configuration.host, port: configuration.port)
            watch.start()
            let started: OpaquePointer
            do {
                started = try MicroHTTPDDaemon.start(server: self)
            } catch {
                watch.stop()
                acceptor.stop()
                throw error
            }
            daemon = started
            self.acceptor = acceptor
            acceptor.start(
                handingTo: started, openConnections: openConnections, limit: max(1, configuration.maximumConnections)
            ) { [watch] in watch.makeRoom(now: .now) }
            boundPort = acceptor.port
            return acceptor.port
        }
    }

    /// Stops accepting, lets requests in flight finish within the grace period, then closes everything.
    ///
    /// New connections are refused from the moment this is called. Requests still running when the
    /// grace period ends lose their connection.
    func shutdown() async {
        guard let acceptor = lock.withLock({ daemon == nil ? nil : self.acceptor }) else { return }
        drainingBox.withLock { $0 = true }
        acceptor.stop()
        let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
        while requestsInFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if requestsInFlight > 0 {
            logger.warning(
                "shutdown grace period over; closing requests in flight",
                metadata: ["in_flight": String(requestsInFlight)])
        }
        stopNow()
    }

    /// Closes the listening socket and every connection at once.
    func stopNow() {
        let (toStop, abandoned, workers): (OpaquePointer?, Int, WorkerThreadPool?) = lock.withLock {
            closing = true
            // Before the daemon stops: no connection may be handed to it after.
            acceptor?.stop()
            acceptor = nil
            // MHD must not be stopped with suspended connections: resume them so that they close.
            let abandoned = suspended.count
            for state in suspended.values {
                state.abandoned = true
                if let connection = state.connection { MHD_resume_connection(connection) }
            }
            suspended.removeAll()
            defer { (daemon, self.workers) = (nil, nil) }
            return (daemon, abandoned, self.workers)
        }
        // Work already handed to the workers still runs; its connection, closed, is not resumed.
        workers?.stop()
        guard let toStop else { return }
        if abandoned > 0 {
            // The resumed connections close on the network threads; give them a moment first.
            let deadline = ContinuousClock.now + .seconds(1)
            while requestsInFlight > 0, ContinuousClock.now < deadline { usleep(1000) }
        }
        MHD_stop_daemon(toStop)
        watch.stop()
    }

    // MARK: Called from the callbacks

    func requestBegan() { inFlight.withLock { $0 += 1 } }
    func requestEnded() { inFlight.withLock { $0 -= 1 } }

    /// Suspends the connection of `state` and runs `respond` on a worker thread, then resumes it; on a
    /// network thread, inside a callback.
    func answerOnWorker(_ state: ConnectionState, _ respond: @escaping @Sendable () -> HTTPResponse) {
        let workers = lock.withLock { () -> WorkerThreadPool? in
            // Started on first use: most servers (admin, emulator, tests) declare no blocking route.
            guard daemon != nil, !closing else { return nil }
            if self.workers == nil {
                self.workers = WorkerThreadPool(threadCount: configuration.workerThreadCount, name: "HTTP-worker")
            }
            return self.workers
        }
        // Stopping: the connection is closed with the daemon.
        guard let workers else { return }
        suspend(state)
        workers.submit {
            state.response = respond()
            self.resume(state)
        }
    }

    /// Keeps the reply of a route that replies (``PlainAnswer/replied(start:)``) for its connection, and
    /// resumes the connection if it is suspended waiting for it; from any thread.
    func deliver(_ response: HTTPResponse, to state: ConnectionState) {
        // Under the lock that suspends, so that the reply cannot fall between the network thread's look
        // for it and its suspension.
        lock.withLock {
            state.response = response
            guard suspended.removeValue(forKey: ObjectIdentifier(state)) != nil, let connection = state.connection
            else { return }
            MHD_resume_connection(connection)
        }
    }

    /// The reply already delivered for `state`, or nil after suspending its connection until
    /// ``deliver(_:to:)`` resumes it; on a network thread, inside a callback.
    func responseOrSuspend(_ state: ConnectionState) -> HTTPResponse? {
        lock.withLock {
            if let response = state.response { return response }
            // Stopping: the connection is closed with the daemon.
            guard let connection = state.connection, !closing else { return nil }
            MHD_suspend_connection(connection)
            suspended[ObjectIdentifier(state)] = state
            return nil
        }
    }

    /// Suspends the connection of `state`; on a network thread, inside a callback.
    func suspend(_ state: ConnectionState) {
        lock.withLock {
            guard let connection = state.connection, !closing else { return }
            MHD_suspend_connection(connection)
            suspended[ObjectIdentifier(state)] = state
        }
    }

    /// Resumes the connection of `state` if it is suspended; from any thread.
    func resume(_ state: ConnectionState) {
        lock.withLock {
            guard suspended.removeValue(forKey: ObjectIdentifier(state)) != nil, let connection = state.connection
            else { return }
            MHD_resume_connection(connection)
        }
    }
}
