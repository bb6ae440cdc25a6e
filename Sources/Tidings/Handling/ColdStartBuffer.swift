/// Holds routes that arrive before the app's UI is ready (a tap that launched the app), and hands each over
/// exactly once.
///
/// On a cold start the same tap can reach the app twice: through the launch options or
/// `connectionOptions.notificationResponse`, and through `userNotificationCenter(_:didReceive:)`. Submit
/// each with the notification request's identifier as its key and the second one is reported as a duplicate,
/// so neither its route nor its events are acted on again.
///
/// ```swift
/// let buffer = ColdStartBuffer<RoutedAction>()
/// let decision = handler.handleResponse(...)
/// switch buffer.submit(decision.route, key: requestIdentifier) {
/// case .duplicate: return                          // already handled: record nothing
/// case .held: record(decision.events)              // performed when the UI is ready
/// case .performNow(let route): record(decision.events); perform(route)
/// }
/// // ... when the root view is on screen:
/// buffer.ready().forEach(perform)                  // each held route once; later calls return []
/// ```
public final class ColdStartBuffer<Element: Sendable>: Sendable {
    /// What became of a submitted element.
    public enum Submission: Sendable {
        /// The app is ready: perform it now.
        case performNow(Element)
        /// Kept until ``ColdStartBuffer/ready()``.
        case held
        /// Its key was submitted before; drop it.
        case duplicate
    }

    private struct State {
        var isReady = false
        var held: [Element] = []
        var recentKeys: [String] = []
    }

    private let state = LockedBox(State())
    /// The most routes held; older ones are dropped first, since only the last taps matter.
    public let capacity: Int
    /// How many recent keys are remembered for de-duplication.
    public let keyMemory: Int

    public init(capacity: Int = 8, keyMemory: Int = 32) {
        self.capacity = max(1, capacity)
        self.keyMemory = max(1, keyMemory)
    }

    /// Hands `element` back to perform now when ready, holds it otherwise, and drops a repeated `key`.
    public func submit(_ element: Element, key: String? = nil) -> Submission {
        state.withLock { state in
            if let key {
                if state.recentKeys.contains(key) { return .duplicate }
                state.recentKeys.append(key)
                if state.recentKeys.count > keyMemory { state.recentKeys.removeFirst() }
            }
            if state.isReady { return .performNow(element) }
            state.held.append(element)
            if state.held.count > capacity { state.held.removeFirst(state.held.count - capacity) }
            return .held
        }
    }

    /// Marks the app ready and returns the held elements, oldest first; every later call returns none.
    public func ready() -> [Element] {
        state.withLock { state in
            state.isReady = true
            defer { state.held = [] }
            return state.held
        }
    }

    /// Whether ``ready()`` has been called.
    public var isReady: Bool { state.withLock { $0.isReady } }
}
