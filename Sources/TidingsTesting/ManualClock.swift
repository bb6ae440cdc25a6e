import Foundation
import TidingsModel

/// A clock that moves only when a test calls ``advance(by:)``; sleepers wake when their time comes.
public final class ManualClock: TidingsClock, @unchecked Sendable {
    // @unchecked: all mutable state lives in `state`, which is locked.
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UUID: Sleeper] = [:]
    }

    private let state: LockedBox<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = LockedBox(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock; lets a test wait until work has parked.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // A cancellation that landed before this point found no sleeper to resume, so check here.
                let resumeNow = state.withLock { state -> Bool in
                    let deadline = state.now.addingTimeInterval(duration.seconds)
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            try Task.checkCancellation()
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and resumes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(duration.seconds)
            let now = state.now
            let dueIDs = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            return dueIDs.compactMap { state.sleepers.removeValue(forKey: $0) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
