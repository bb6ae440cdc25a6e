import Foundation

/// A value behind a lock, for small synchronous state shared across threads.
///
/// `Synchronization.Mutex` needs iOS 18, and the SDK supports older systems, so this box is ours.
public final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
