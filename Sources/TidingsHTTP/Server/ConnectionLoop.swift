import Foundation
import TidingsModel

/// One network thread: a ``ReadinessPoller`` (epoll or poll(2)) over its connections, read and written without
/// blocking, and a queue of work other threads hand it (a connection to adopt, a handler's response, a streamed
/// body's next piece).
///
/// Everything about a connection happens on its loop's thread, so ``HTTPConnection`` needs no lock; other
/// threads reach a connection only through ``post(_:)``.
final class ConnectionLoop: @unchecked Sendable {
    // @unchecked: `connections` and `stopped` are the loop thread's alone; `posted` and `signalled` are
    // guarded by `lock`; `thread` is written once, before the thread starts.

    /// Waits for the connections' sockets; woken when work is posted.
    let poller: any ReadinessPoller
    private let lock = NSLock()
    private var posted: [@Sendable () -> Void] = []
    private var signalled = false
    private var connections: [Int32: HTTPConnection] = [:]
    private var stopped = false
    private let ended = DispatchSemaphore(value: 0)
    /// Set before the thread starts, and never again.
    private var thread: Thread?
    /// How often connections are checked for the idle timeout.
    private let sweepInterval: Duration
    private var lastSweep = ContinuousClock.now
    /// The `Date` of the responses this thread writes.
    let dateCache = HTTPDateCache()

    /// - Throws: ``HTTPServerError`` when the system refuses the backend's poller.
    init(sweepInterval: Duration, backend: HTTPServer.ReadinessBackend) throws(HTTPServerError) {
        poller = try backend.makePoller()
        self.sweepInterval = sweepInterval
    }

    func start(name: String) {
        let thread = Thread { [self] in
            run()
            ended.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Closes every connection and ends the thread; returns once it has ended, unless called on the thread
    /// itself (a handler that stops its own server), which ends once the call returns.
    func stop() {
        post { [self] in stopped = true }
        if !isCurrent { ended.wait() }
    }

    /// True on the loop's own thread.
    var isCurrent: Bool { thread.map { $0 === Thread.current } ?? false }

    /// Runs `work` on the loop's thread, after the events it is handling now. Work posted once the loop has
    /// stopped is dropped.
    func post(_ work: @escaping @Sendable () -> Void) {
        let wake = lock.withLock {
            posted.append(work)
            defer { signalled = true }
            return !signalled
        }
        if wake, !isCurrent { poller.wake() }
    }

    /// Adopts an accepted socket; on the loop's thread.
    func adopt(_ connection: HTTPConnection) {
        guard poller.add(connection.descriptor) else {
            connection.close(.error)
            return
        }
        connections[connection.descriptor] = connection
        connection.opened()
    }

    /// Forgets a connection that closed its socket; on the loop's thread.
    func forget(_ descriptor: Int32) {
        poller.remove(descriptor)
        connections.removeValue(forKey: descriptor)
    }

    private func run() {
        let timeout = Int32(max(10, sweepInterval.milliseconds))
        while !stopped {
            poller.wait(timeoutMilliseconds: timeout) { descriptor, events in
                connections[descriptor]?.handle(events: events)
            }
            runPosted()
            let now = ContinuousClock.now
            if now - lastSweep >= sweepInterval {
                lastSweep = now
                for connection in Array(connections.values) { connection.closeIfIdle(now: now) }
            }
        }
        // Stopping: whatever is still posted (responses for connections about to close) is dropped.
        for connection in Array(connections.values) { connection.close(.shutdown) }
        lock.withLock { posted.removeAll() }
    }

    private func runPosted() {
        while true {
            let work = lock.withLock {
                defer {
                    posted.removeAll(keepingCapacity: true)
                    signalled = false
                }
                return posted
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
