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
            { request in try await HandlerRace.run(limit: limit) { try await next(request) } }
        }
    }
}

/// The handler against a timer: the first to finish answers, the other is cancelled and not awaited.
enum HandlerRace {
    static func run(limit: Duration, _ body: @escaping @Sendable () async throws -> HTTPResponse) async throws
        -> HTTPResponse
    {
        let tasks = LockedBox<[Task<Void, Never>]>([])
        let finished = LockedBox(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, Error>) in
                let finish: @Sendable (Result<HTTPResponse, Error>) -> Void = { result in
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
                        finish(.failure(HTTPError.handlerTimeout(limit: limit)))
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
