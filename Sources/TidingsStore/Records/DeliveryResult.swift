/// What fan-out records for a claimed delivery.
public enum DeliveryResult: Sendable, Hashable {
    case sent
    /// Never retried; the reason is the provider's (`BadDeviceToken`, `token_invalid`...).
    case failed(reason: String)
    /// Never sent: no provider could reach the installation (`no_fcm_credentials`...).
    case skipped(reason: String)
    /// Back to pending, with one more attempt, not before the given unix milliseconds.
    case retry(reason: String, notBefore: Int64)
    /// Back to pending without using an attempt: held by policy (an ad waiting for the morning), not failed.
    case deferred(reason: String, notBefore: Int64)

    /// The reason of a delivery claimed but not sent, handed back to the queue (a worker stopping).
    public static let interruptedReason = "interrupted"
}
