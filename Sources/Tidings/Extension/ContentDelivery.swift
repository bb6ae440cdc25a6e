/// Hands a result to a completion handler exactly once, whoever gets there first.
///
/// The Notification Service Extension has two ways to finish: the pipeline completes, or iOS calls
/// `serviceExtensionTimeWillExpire`. Calling the content handler twice (or never) is a classic extension
/// bug; this guard makes the first ``deliver(_:)`` or ``expire()`` win and every later call a no-op.
///
/// ```swift
/// let delivery = ContentDelivery(fallback: textOnly) { result in contentHandler(make(result)) }
/// delivery.offer(withCategoryAndBadge)   // the best attempt so far
/// delivery.deliver(withMedia)            // or, from timeWillExpire: delivery.expire()
/// ```
public final class ContentDelivery<Value: Sendable>: Sendable {
    private struct State {
        var best: Value
        var completion: (@Sendable (Value) -> Void)?
    }

    private let state: LockedBox<State>

    /// - Parameters:
    ///   - fallback: what ``expire()`` delivers if nothing better was offered.
    ///   - completion: called once, on the thread of the winning call, outside any lock.
    public init(fallback: Value, completion: @escaping @Sendable (Value) -> Void) {
        state = LockedBox(State(best: fallback, completion: completion))
    }

    /// Whether the completion has run (or is running).
    public var isDelivered: Bool { state.withLock { $0.completion == nil } }

    /// The best attempt so far: what ``expire()`` delivers. Ignored once delivered.
    public func offer(_ value: Value) {
        state.withLock { state in
            if state.completion != nil { state.best = value }
        }
    }

    /// Delivers `value` unless something was delivered already.
    ///
    /// - Returns: true when this call delivered.
    @discardableResult
    public func deliver(_ value: Value) -> Bool {
        let completion = state.withLock { state -> (@Sendable (Value) -> Void)? in
            defer { state.completion = nil }
            return state.completion
        }
        guard let completion else { return false }
        completion(value)
        return true
    }

    /// Delivers the best attempt so far unless something was delivered already.
    ///
    /// - Returns: true when this call delivered.
    @discardableResult
    public func expire() -> Bool {
        let taken = state.withLock { state -> (completion: @Sendable (Value) -> Void, value: Value)? in
            guard let completion = state.completion else { return nil }
            state.completion = nil
            return (completion, state.best)
        }
        guard let taken else { return false }
        taken.completion(taken.value)
        return true
    }
}
