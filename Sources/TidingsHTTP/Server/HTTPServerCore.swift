import CSocket
import Foundation
import TidingsMetrics
import TidingsModel

/// What ``HTTPServer`` does, and all that its network threads, the handlers' tasks and the streamed bodies
/// reach: the network threads, the connection counts, the counters.
///
/// It is apart from ``HTTPServer`` so that nothing but the server's owner holds the server. A network thread
/// that held the last reference to the server would run its deinit, which stops the network threads and
/// waits for each to end, on one of them. The threads hold this object instead; the server's deinit stops
/// them, on its owner's thread, before it lets go.
final class HTTPServerCore: @unchecked Sendable {
    // @unchecked: `loops`, `acceptor`, `workers`, `boundPort` and `nextLoop` are guarded by `lock`.

    let configuration: HTTPServer.Configuration
    let handler: HTTPHandler
    let immediateHandler: ImmediateRequestHandler?
    let logger: Logger
    let metrics: HTTPServerMetrics?
    /// The header and body deadlines of every open connection.
    let watch: ConnectionWatch
    /// The largest request line plus headers read: ``HTTPServer/Configuration/connectionMemoryLimit``.
    let headLimit: Int

    private let lock = NSLock()
    private var loops: [ConnectionLoop] = []
    private var nextLoop = 0
    private var acceptor: ConnectionAcceptor?
    /// Runs the blocking routes while the server runs: started by the first of them, nil when stopped.
    private var workers: WorkerThreadPool?
    private var boundPort: Int?
    private let inFlight = LockedBox(0)
    /// Connections handed to a network thread and not yet closed.
    let openConnections = LockedBox(0)
    /// Open connections by client address, for ``HTTPServer/Configuration/maximumConnectionsPerAddress``.
    private let connectionsByAddress = LockedBox<[String: Int]>([:])
    private let drainingBox = LockedBox(false)

    init(
        configuration: HTTPServer.Configuration, handler: @escaping HTTPHandler,
        immediateHandler: ImmediateRequestHandler?, logger: Logger, metrics: MetricsRegistry?
    ) {
        self.configuration = configuration
        self.handler = handler
        self.immediateHandler = immediateHandler
        self.logger = logger
        headLimit = max(1024, configuration.connectionMemoryLimit)
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
            guard acceptor == nil else {
                throw HTTPServerError(code: "already_started", message: "the server is running")
            }
            drainingBox.withLock { $0 = false }
            let acceptor = try ConnectionAcceptor(host: configuration.host, port: configuration.port)
            // Often enough to close idle connections near their timeout, and lingering ones near theirs.
            let sweep = min(.seconds(1), max(.milliseconds(50), configuration.connectionTimeout / 4))
            let loops = try (0..<max(1, configuration.threadCount)).map { _ in
                try ConnectionLoop(sweepInterval: sweep, backend: configuration.readinessBackend)
            }
            for (index, loop) in loops.enumerated() { loop.start(name: "tidings-http-\(index)") }
            self.loops = loops
            watch.start()
            self.acceptor = acceptor
            acceptor.start(
                openConnections: openConnections, limit: max(1, configuration.maximumConnections),
                makeRoom: { [watch] in watch.makeRoom(now: .now) },
                handOff: { [unowned self] descriptor, address in adopt(descriptor, address: address) })
            boundPort = acceptor.port
            return acceptor.port
        }
    }

    /// Stops accepting, lets requests in flight finish within the grace period, then closes everything.
    ///
    /// New connections are refused from the moment this is called. Requests still running when the
    /// grace period ends lose their connection.
    func shutdown() async {
        guard let acceptor = lock.withLock({ self.acceptor }) else { return }
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
        let (acceptor, loops, workers) = lock.withLock {
            defer { (self.acceptor, self.loops, self.workers) = (nil, [], nil) }
            return (self.acceptor, self.loops, self.workers)
        }
        // Before the network threads stop: no connection may be handed to them after.
        acceptor?.stop()
        for loop in loops { loop.stop() }
        // Work already handed to the workers still runs; its connection, closed, is not answered.
        workers?.stop()
        if acceptor != nil { watch.stop() }
    }

    // MARK: Connections

    /// Takes an accepted socket: refuses it (closes it at once) when its address holds its share already,
    /// else hands it to the next network thread. Counted here, on the accepting thread, so that the next
    /// accept already sees it.
    private func adopt(_ descriptor: Int32, address: String?) {
        let cap = configuration.maximumConnectionsPerAddress
        if cap > 0, let address {
            let admitted = connectionsByAddress.withLock { counts in
                guard counts[address, default: 0] < cap else { return false }
                counts[address, default: 0] += 1
                return true
            }
            guard admitted else {
                close(descriptor)
                return
            }
        }
        openConnections.withLock { $0 += 1 }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let loop: ConnectionLoop? = lock.withLock {
            guard !loops.isEmpty else { return nil }
            defer { nextLoop = (nextLoop + 1) % loops.count }
            return loops[nextLoop]
        }
        guard let loop else {
            close(descriptor)
            connectionClosed(remoteAddress: address)
            return
        }
        let connection = HTTPConnection(descriptor: descriptor, remoteAddress: address, loop: loop, server: self)
        loop.post { loop.adopt(connection) }
    }

    /// A connection's socket is closed; from its network thread.
    func connectionClosed(remoteAddress: String?) {
        openConnections.withLock { $0 -= 1 }
        guard configuration.maximumConnectionsPerAddress > 0, let remoteAddress else { return }
        connectionsByAddress.withLock { counts in
            let left = counts[remoteAddress, default: 1] - 1
            counts[remoteAddress] = left > 0 ? left : nil
        }
    }

    func requestBegan() { inFlight.withLock { $0 += 1 } }
    func requestEnded() { inFlight.withLock { $0 -= 1 } }

    /// Runs `work` on a worker thread (the blocking routes), starting the workers on first use: most
    /// servers (admin, emulator, tests) declare no blocking route. Dropped once the server has stopped.
    func runOnWorker(_ work: @escaping @Sendable () -> Void) {
        let workers = lock.withLock { () -> WorkerThreadPool? in
            guard !loops.isEmpty else { return nil }
            if self.workers == nil {
                self.workers = WorkerThreadPool(threadCount: configuration.workerThreadCount, name: "HTTP-worker")
            }
            return self.workers
        }
        workers?.submit(work)
    }
}
