import Foundation
import TidingsModel
import TidingsPush
import TidingsServer

/// A ``PushProvider`` for tests: answers with scripted outcomes per token, records every push it accepted
/// an outcome for, and the most sends it saw in flight at once.
///
/// ```swift
/// let provider = RecordingPushProvider()
/// provider.script(token: gone, [PushOutcome(disposition: .tokenInvalid(since: nil), status: 410)])
/// // ... run fan-out ...
/// provider.pushes.count
/// ```
///
/// ``stall(after:)`` simulates a provider that stops answering: sends after the first `n` hang until their
/// task is cancelled, then return an `interrupted` outcome with reason `cancelled` and are not recorded.
public final class RecordingPushProvider: PushProvider {
    private struct State {
        var scripts: [String: [PushOutcome]] = [:]
        var pushes: [OutgoingPush] = []
        var inFlight = 0
        var maximumInFlight = 0
        var stallAfter: Int?
        var started = 0
    }

    private let state = LockedBox(State())
    /// The outcome when a token has no script left.
    public let defaultOutcome: PushOutcome

    public init(defaultOutcome: PushOutcome = PushOutcome(disposition: .sent, status: 200)) {
        self.defaultOutcome = defaultOutcome
    }

    /// Queues outcomes for `token`, used one per send in order; then ``defaultOutcome``.
    public func script(token: String, _ outcomes: [PushOutcome]) {
        state.withLock { $0.scripts[token, default: []].append(contentsOf: outcomes) }
    }

    /// Makes every send after the first `count` (counted from now on) hang until cancelled.
    public func stall(after count: Int) {
        state.withLock { $0.stallAfter = $0.started + count }
    }

    /// Every push that got an outcome, in completion order.
    public var pushes: [OutgoingPush] { state.withLock { $0.pushes } }

    /// The most sends in flight at once.
    public var maximumInFlight: Int { state.withLock { $0.maximumInFlight } }

    /// How many pushes went to each token.
    public var pushCountsByToken: [String: Int] {
        state.withLock { state in state.pushes.reduce(into: [:]) { $0[$1.token, default: 0] += 1 } }
    }

    public func send(_ push: OutgoingPush) async -> PushOutcome {
        let stalls = state.withLock { state -> Bool in
            state.started += 1
            state.inFlight += 1
            state.maximumInFlight = max(state.maximumInFlight, state.inFlight)
            return state.stallAfter.map { state.started > $0 } ?? false
        }
        if stalls {
            // Sleeps until the sending task is cancelled: the provider "stopped answering".
            try? await Task.sleep(for: .seconds(86_400))
            state.withLock { $0.inFlight -= 1 }
            return PushOutcome(disposition: .interrupted, reason: "cancelled")
        }
        // Lets other sends start, so bounded concurrency is observable.
        for _ in 0..<3 { await Task.yield() }
        return state.withLock { state in
            state.inFlight -= 1
            state.pushes.append(push)
            guard var script = state.scripts[push.token], !script.isEmpty else { return defaultOutcome }
            let outcome = script.removeFirst()
            state.scripts[push.token] = script
            return outcome
        }
    }
}
