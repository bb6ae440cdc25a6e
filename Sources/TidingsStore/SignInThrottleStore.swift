/// Failed sign-in counts shared by every instance on the store, so guesses spread over several instances meet
/// one limit (docs/security.md, "Console sessions").
///
/// Each bucket's level drains at `drainPerSecond` and rises by one per failure: a leaky bucket, equivalent to
/// a token bucket whose tokens are `burst - level`. Buckets are named by the caller (`account:` and a digest).
public protocol SignInThrottleStore: Sendable {
    /// The bucket's level at `at` (milliseconds), after draining; 0 for a bucket never filled.
    func signInFailureLevel(bucket: String, drainPerSecond: Double, at: Int64) throws -> Double
    /// Drains the bucket to `at` and adds one failure, in one statement.
    func addSignInFailure(bucket: String, drainPerSecond: Double, at: Int64) throws
    /// Empties a bucket (a right password ends the account's count).
    func clearSignInFailures(bucket: String) throws
    /// Drops buckets last filled before `before`; how many.
    @discardableResult
    func removeSignInFailures(updatedBefore before: Int64) throws -> Int
}
