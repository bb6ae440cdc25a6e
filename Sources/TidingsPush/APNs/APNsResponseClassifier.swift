import Foundation

/// Turns an APNs answer (status, reason, timestamp, Retry-After) into a ``PushOutcome``: a pure function,
/// table-tested, with Apple's reason table from "Handling notification responses from APNs".
///
/// - Important: Apple says not to retry `BadDeviceToken`, `DeviceTokenNotForTopic`, `Forbidden`,
///   `ExpiredToken`, `Unregistered` or `PayloadTooLarge`; `TooManyRequests` and 5xx are retried after a delay.
///   403 `ExpiredProviderToken`/`InvalidProviderToken` mean our JWT must be renewed: ``APNsClient`` renews it
///   and retries once itself, so here they classify as the final `failed`.
public enum APNsResponseClassifier {
    /// Reasons that mean the token is gone for good (HTTP 410).
    public static let tokenGoneReasons: Set<String> = ["Unregistered", "ExpiredToken"]

    /// Reasons that mean the token does not fit this environment or topic (HTTP 400): not proof it is dead.
    public static let tokenMismatchReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]

    /// Reasons that mean the provider token (JWT) must be renewed before the next request.
    public static let providerTokenReasons: Set<String> = ["ExpiredProviderToken", "InvalidProviderToken"]

    /// Reasons worth sending again later, whatever their status.
    public static let retryableReasons: Set<String> = [
        "TooManyRequests", "TooManyProviderTokenUpdates", "InternalServerError", "ServiceUnavailable", "Shutdown",
        "IdleTimeout",
    ]

    /// Reasons Apple documents for a request that will fail the same way again: never retried.
    public static let permanentReasons: Set<String> = [
        // 400
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic", "DuplicateHeaders",
        "InvalidPushType", "MissingDeviceToken", "MissingTopic", "PayloadEmpty", "TopicDisallowed",
        // 403
        "BadCertificate", "BadCertificateEnvironment", "Forbidden", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken",
        // 404, 405, 413
        "BadPath", "MethodNotAllowed", "PayloadTooLarge",
    ]

    /// Whether APNs rejected our provider token, so the client should invalidate it and retry once.
    public static func isProviderTokenRejection(status: Int, reason: String?) -> Bool {
        status == 403 && reason.map(providerTokenReasons.contains) == true
    }

    /// The outcome of one answer.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - reason: the `reason` of the JSON body, if any.
    ///   - timestamp: the `timestamp` of a 410 body, in milliseconds since 1970.
    ///   - retryAfter: the `retry-after` header, if any (seconds; an HTTP date is ignored).
    ///   - apnsID: the `apns-id` header, if any.
    public static func outcome(
        status: Int, reason: String?, timestamp: Int64? = nil, retryAfter: String? = nil, apnsID: UUID? = nil
    ) -> PushOutcome {
        func make(_ disposition: PushOutcome.Disposition) -> PushOutcome {
            PushOutcome(disposition: disposition, status: status, reason: reason, apnsID: apnsID)
        }
        let delay = retryAfter.flatMap(parseRetryAfter)
        if status == 200 { return make(.sent) }
        if let reason {
            if tokenGoneReasons.contains(reason) {
                let since = timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
                return make(.tokenInvalid(since: since))
            }
            if tokenMismatchReasons.contains(reason) { return make(.tokenMismatch) }
            if retryableReasons.contains(reason) { return make(.retry(after: delay)) }
            if permanentReasons.contains(reason) || providerTokenReasons.contains(reason) { return make(.failed) }
        }
        // An unknown or missing reason: decide by status class.
        switch status {
        case 410:
            let since = timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return make(.tokenInvalid(since: since))
        case 429, 500...599:
            return make(.retry(after: delay))
        default:
            return make(.failed)
        }
    }

    /// `Retry-After` in delta-seconds; nil for an HTTP date or garbage.
    static func parseRetryAfter(_ value: String) -> Duration? {
        guard let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
