import Foundation

/// A fixed set of threads of its own for plain work that may wait (an event batch waiting for its group's
/// commit, a group commit itself), so that neither the server's network threads nor Swift's cooperative
/// threads wait. On Linux Swift's cooperative threads and libdispatch's global queues share one pool of
/// about one thread per core: work that waited there would stall every task of the process.
///
/// A network thread that waited for a commit could not read its other connections meanwhile. With the
/// waiting moved here, the network threads go on reading, and more writes reach each commit: with 32
/// connections posting event batches, groups of about 11 batches instead of 5 (BENCHMARKS.md).
public final class WorkerThreadPool: @unchecked Sendable {
    // @unchecked: `queue` and `stopping` are touched only under `condition`.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false

    /// Starts `threadCount` threads named `name`.
    public init(threadCount: Int, name: String) {
        for _ in 0..<max(1, threadCount) {
            // The thread keeps the pool until `stop()` lets it end.
            let thread = Thread { self.serve() }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Runs `work` on one of the threads, in submission order.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Runs `work` on one of the threads and returns what it returns; the calling task is suspended meanwhile
    /// rather than holding a cooperative thread.
    public func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Lets the threads finish what was submitted and end; later submissions are dropped.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while head == queue.count && !stopping { condition.wait() }
            if head == queue.count {
                condition.unlock()
                return
            }
            let work = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            work()
        }
    }
}
