import TidingsModel

/// Runs token updates one after another, in the order iOS reported them.
///
/// PushKit and Firebase call back synchronously, so each update becomes a task; independent tasks may run
/// in any order, and an invalidation that overtakes the update before it would leave a dead token
/// registered (or drop a live one). Each task here waits for the one before it.
public final class TokenUpdateQueue: Sendable {
    private let last = LockedBox<Task<Void, Never>?>(nil)

    public init() {}

    /// Schedules `update` after every update enqueued before it.
    public func enqueue(_ update: @escaping @Sendable () async -> Void) {
        last.withLock { last in
            let previous = last
            last = Task {
                await previous?.value
                await update()
            }
        }
    }

    /// Returns once every update enqueued so far has run.
    public func waitUntilIdle() async {
        await last.withLock { $0 }?.value
    }
}
