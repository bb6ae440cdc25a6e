import Foundation

/// Runs blocking work (a child process, a read that waits) on a thread of its own and awaits its result.
///
/// Not `DispatchQueue.global()`: on Linux its default queue is the same few threads (one per core) that run
/// Swift's tasks, so tests that block it starve the in-process servers their child processes are talking to,
/// and those requests time out.
package func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// ``offThePool(_:)`` for work that cannot fail.
package func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
