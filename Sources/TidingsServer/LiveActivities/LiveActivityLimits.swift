/// Limits of `POST /v1/live-activities`, documented in docs/live-activities.md.
public struct LiveActivityLimits: Sendable {
    /// Priority-10 pushes each activity may have per ``budgetWindow``; beyond it pushes go at priority 5
    /// (or are refused, as the request asks). 0 allows no priority-10 update at all. Apple budgets
    /// priority-10 updates per activity and throttles an app that overspends; an app with
    /// `NSSupportsLiveActivitiesFrequentUpdates` may raise this.
    public var priorityBudget = 10
    /// The window the budget refills in: fixed windows aligned to multiples of it since 1970.
    public var budgetWindow: Duration = .seconds(3600)
    /// The most tokens one request may reach; beyond it the request is refused with 422 (for a larger
    /// audience, APNs broadcast channels are the tool).
    public var maximumRecipients = 10_000
    /// Pushes in flight at once for one request.
    public var concurrency = 32
    /// Update tokens not refreshed for this long are pruned before sending: iOS ends an activity after
    /// 8 hours and removes it from the Lock Screen at most 4 hours later.
    public var maximumActivityAge: Duration = .seconds(12 * 3600)
    /// Further tries of a push the provider answers "retry" (429, 5xx, no answer).
    public var retries = 2
    /// The pause before the first retry; it doubles each time, and a provider's `Retry-After` is
    /// honoured up to ``maximumRetryDelay``.
    public var retryDelay: Duration = .milliseconds(200)
    public var maximumRetryDelay: Duration = .seconds(2)

    public init() {}
}
