import TidingsHTTP

/// How console sessions behave: their timeouts, cookie and sign-in limits.
public struct ConsoleSessionSettings: Sendable, Equatable {
    /// A session unused this long ends (seconds). Default 30 minutes.
    public var idleTimeout: Double = 30 * 60
    /// A session ends this long after sign-in whatever its use (seconds). Default 12 hours.
    public var absoluteTimeout: Double = 12 * 60 * 60
    /// Whether the cookie carries `Secure`: set when tidingsd serves TLS or sits behind an https origin.
    public var secureCookie = false
    /// Origins (`https://push.example.com`) a write's `Origin` header may name besides the request's own
    /// `Host`; for a reverse proxy that rewrites `Host`.
    public var allowedOrigins: Set<String> = []
    /// Sign-in attempts one client address may fail: past it, 429 until tokens come back.
    public var failedSignInsPerAddress = RateLimit(burst: 10, perSecond: 0.1)
    /// Sign-in attempts one account may fail, from any address: slows guessing spread over many addresses.
    /// It never applies from a browser or address the operator signed in from within
    /// ``trustedSignInLifetime``, so guessing elsewhere cannot lock the operator out.
    public var failedSignInsPerAccount = RateLimit(burst: 5, perSecond: 1.0 / 30)
    /// How long a browser or address stays trusted after the operator's last sign-in from it (seconds).
    /// Default 90 days.
    public var trustedSignInLifetime: Double = 90 * 24 * 60 * 60
    /// Whether admin operators must use two-factor sign-in (`--require-admin-2fa`): an admin without it may
    /// only enrol until they have. Default off.
    public var requireAdminTwoFactor = false
    /// How long the challenge a right password gets (with two-factor sign-in on) waits for the code (seconds).
    public var signInChallengeLifetime: Double = 5 * 60
    /// Codes one challenge may try before it ends and the password is needed again.
    public var codeTriesPerChallenge = 5

    public init() {}
}
