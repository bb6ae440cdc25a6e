/// One thing a server needs before it should take traffic: a name for `/readyz` and a probe that throws
/// when the thing is not there.
///
/// ```swift
/// ReadinessCheck("store") { try store.ping() }
/// ReadinessCheck("fanout") {
///     guard fanout.isRunning else { throw ReadinessCheck.Failure("the fan-out workers are not running") }
/// }
/// ```
public struct ReadinessCheck: Sendable {
    /// What a check throws to say what is wrong, in words safe to show on `/readyz` (no paths, no secrets).
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String

        public init(_ message: String) {
            self.message = message
        }

        public var description: String { message }
    }

    /// The key under `checks` in the `/readyz` answer: `store`, `fanout`, `credentials`.
    public var name: String
    /// Returns when ready; throws (preferably a ``Failure``) when not.
    public var run: @Sendable () async throws -> Void

    public init(_ name: String, _ run: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.run = run
    }
}
