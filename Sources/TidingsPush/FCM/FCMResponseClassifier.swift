import Foundation
import TidingsModel

/// Turns an FCM HTTP v1 answer (status, error body, Retry-After) into a ``PushOutcome``: a pure function.
///
/// FCM's error body is `{"error":{"code":404,"status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`; the reason is the
/// `FcmError` code when present, otherwise the canonical `status`.
///
/// - Important: `UNREGISTERED` (404) and `SENDER_ID_MISMATCH` (403) mean the registration token is dead for
///   this project: deactivate it. `UNAVAILABLE` (503), `INTERNAL` (500) and `QUOTA_EXCEEDED` (429) are retried
///   with backoff, no sooner than `Retry-After`. `INVALID_ARGUMENT` (400) fails the same way every time and is
///   never retried. `UNAUTHENTICATED` (401) means our access token: ``FCMClient`` refreshes it and retries
///   once itself, so here it is the final `failed`.
public enum FCMResponseClassifier {
    /// Reasons that mean the registration token is gone for this sender.
    public static let tokenGoneReasons: Set<String> = ["UNREGISTERED", "SENDER_ID_MISMATCH"]
    /// Reasons worth sending again later.
    public static let retryableReasons: Set<String> = ["UNAVAILABLE", "INTERNAL", "QUOTA_EXCEEDED"]

    /// The reason of an error body: the `FcmError` `errorCode`, else `error.status`; nil when neither.
    public static func reason(body: [UInt8]) -> String? {
        guard let error = (try? JSONValue.parse(body))?["error"] else { return nil }
        for detail in error["details"]?.arrayValue ?? [] {
            if detail["@type"]?.stringValue?.hasSuffix("FcmError") == true, let code = detail["errorCode"]?.stringValue
            {
                return code
            }
        }
        return error["status"]?.stringValue
    }

    /// The outcome of one answer.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - reason: ``reason(body:)`` of the answer.
    ///   - retryAfter: the `retry-after` header (delta-seconds; an HTTP date is ignored).
    public static func outcome(status: Int, reason: String?, retryAfter: String? = nil) -> PushOutcome {
        func make(_ disposition: PushOutcome.Disposition) -> PushOutcome {
            PushOutcome(disposition: disposition, status: status, reason: reason)
        }
        if status == 200 { return make(.sent) }
        let delay = retryAfter.flatMap(APNsResponseClassifier.parseRetryAfter)
        if let reason {
            if tokenGoneReasons.contains(reason) { return make(.tokenInvalid(since: nil)) }
            if retryableReasons.contains(reason) { return make(.retry(after: delay)) }
            if reason == "INVALID_ARGUMENT" { return make(.failed) }
        }
        switch status {
        case 429, 500...599: return make(.retry(after: delay))
        default: return make(.failed)
        }
    }
}
