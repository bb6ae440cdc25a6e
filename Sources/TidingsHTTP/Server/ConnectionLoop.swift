import CSocket
import Foundation
import TidingsModel

/// One network thread: an epoll set of connections, read and written without blocking, and a queue of work
/// other threads hand it (a connection to adopt, a handler's response, a streamed body's next piece).
///
/// Everything about a connection happens on its loop's thread, so ``HTTPConnection`` needs no lock; other
/// threads reach a connection only through ``post(_:)``.
final class ConnectionLoop: @unchecked Sendable {
    // @unchecked: `connections` and `stopped` are the loop thread's alone; `posted` and `signalled` are
    // guarded by `lock`; `thread` is written once, before the thread starts.

    private let epoll: Int32
    /// Written to wake the thread from `epoll_wait` when work is posted.
    private let wakeup: Int32
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

    /// The epoll token of the wake-up descriptor; connections use their descriptor as token.
    private static let wakeupToken = UInt64.max

    init(sweepInterval: Duration) throws(HTTPServerError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        self.sweepInterval = sweepInterval
        guard epoll >= 0, wakeup >= 0,
            tidings_epoll_add(epoll, wakeup, EPOLLIN.rawValue | EPOLLET.rawValue, Self.wakeupToken) == 0
        else {
            if epoll >= 0 { close(epoll) }
            if wakeup >= 0 { close(wakeup) }
            throw HTTPServerError(code: "daemon_failed", message: "could not create the network threads' epoll sets")
        }
    }

    deinit {
        close(epoll)
        close(wakeup)
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
        if wake, !isCurrent {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }

    /// Adopts an accepted socket; on the loop's thread.
    func adopt(_ connection: HTTPConnection) {
        let added = tidings_epoll_add(
            epoll, connection.descriptor,
            EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue,
            UInt64(UInt32(bitPattern: connection.descriptor)))
        guard added == 0 else {
            connection.close(.error)
            return
        }
        connections[connection.descriptor] = connection
        connection.opened()
    }

    /// Forgets a connection that closed its socket; on the loop's thread.
    func forget(_ descriptor: Int32) {
        connections.removeValue(forKey: descriptor)
    }

    private func run() {
        let capacity = 256
        var tokens = [UInt64](repeating: 0, count: capacity)
        var events = [UInt32](repeating: 0, count: capacity)
        let timeout = Int32(max(10, sweepInterval.milliseconds))
        while !stopped {
            let count = tidings_epoll_wait(epoll, &tokens, &events, Int32(capacity), timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    let token = tokens[index]
                    if token == Self.wakeupToken {
                        var value: UInt64 = 0
                        _ = read(wakeup, &value, 8)
                        continue
                    }
                    guard let connection = connections[Int32(truncatingIfNeeded: token)] else { continue }
                    connection.handle(events: events[index])
                }
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
