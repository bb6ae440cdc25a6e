import Foundation
import TidingsModel

extension HTTPMiddleware {
    /// Answers `503 timeout` when the handler has not produced a response within `limit`.
    ///
    /// The handler's task is cancelled, but the answer does not wait for it to notice: a handler that
    /// ignores cancellation cannot hold the response. A streamed body is not timed here; only
    /// producing the response head is.
    public static func timeout(_ limit: Duration) -> HTTPMiddleware {
        HTTPMiddleware { next in
            { request in
                try await HandlerRace.run(limit: limit, timeout: { HTTPError.handlerTimeout(limit: limit) }) {
                    try await next(request)
                }
            }
        }
    }
}

/// Work against a timer: the first to finish answers, the other is cancelled and not awaited, so work
/// that ignores cancellation (a blocked store call) cannot hold the answer. Used by the handler timeout
/// and by readiness checks.
enum HandlerRace {
    static func run<Value: Sendable>(
        limit: Duration, timeout: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let tasks = LockedBox<[Task<Void, Never>]>([])
        let finished = LockedBox(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let finish: @Sendable (Result<Value, Error>) -> Void = { result in
                    let first = finished.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    guard first else { return }
                    continuation.resume(with: result)
                    for task in tasks.withLock({ $0 }) { task.cancel() }
                }
                let work = Task {
                    do { finish(.success(try await body())) } catch { finish(.failure(error)) }
                }
                let timer = Task {
                    do {
                        try await Task.sleep(for: limit)
                        finish(.failure(timeout()))
                    } catch {
                        // Cancelled: the handler answered first.
                    }
                }
                tasks.withLock { $0 = [work, timer] }
                if finished.withLock({ $0 }) {
                    work.cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }
}
