/// What ``RateLimiter`` answers for one request.
public enum RateLimitDecision: Sendable, Equatable {
    /// Go ahead; a token was taken (or, for ``RateLimiter/status(of:limit:)``, one is there to take).
    case allowed
    /// Refuse; a token will be there in `retryAfterSeconds` whole seconds (rounded up, at least 1), the
    /// value for `Retry-After`.
    case denied(retryAfterSeconds: Int)

    public var isAllowed: Bool { self == .allowed }
}
