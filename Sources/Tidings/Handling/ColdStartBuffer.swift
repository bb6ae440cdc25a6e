/// Holds routes that arrive before the app's UI is ready (a tap that launched the app), and hands them
/// over exactly once.
///
/// ```swift
/// let buffer = ColdStartBuffer<RoutedAction>()
/// if let now = buffer.submit(route) { perform(now) }   // nil while not ready: held
/// // ... when the root view is on screen:
/// buffer.ready().forEach(perform)                       // each held route once; later calls return []
/// ```
public final class ColdStartBuffer<Element: Sendable>: Sendable {
    private struct State {
        var isReady = false
        var held: [Element] = []
    }

    private let state = LockedBox(State())
    /// The most routes held; older ones are dropped first, since only the last taps matter.
    public let capacity: Int

    public init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// Returns `element` to perform now when ready; otherwise holds it and returns nil.
    public func submit(_ element: Element) -> Element? {
        state.withLock { state in
            if state.isReady { return element }
            state.held.append(element)
            if state.held.count > capacity { state.held.removeFirst(state.held.count - capacity) }
            return nil
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
