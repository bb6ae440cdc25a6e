import Foundation
import TidingsModel

/// What a provider made of one push: the input of fan-out's bookkeeping and token hygiene.
public struct PushOutcome: Sendable, Hashable {
    /// What to do next, decided by the provider from the status and reason.
    public enum Disposition: Sendable, Hashable {
        /// Accepted by APNs/FCM.
        case sent
        /// The token is gone (APNs 410 Unregistered/ExpiredToken, FCM UNREGISTERED): deactivate it unless
        /// it was registered again after `since` (APNs' timestamp), when known.
        case tokenInvalid(since: Date?)
        /// The token belongs to the other environment or another topic (APNs 400 BadDeviceToken,
        /// DeviceTokenNotForTopic): mark the mismatch, do not delete the token everywhere.
        case tokenMismatch
        /// Try again later (429, 5xx, transport errors), no sooner than `retryAfter` when given.
        case retry(after: Duration?)
        /// Never retry (a malformed request, a payload too large, a bad topic...).
        case failed
        /// Not sent: no provider the app has credentials for can reach the installation; the reason says why.
        case skipped
        /// Cut off by this process, not by the provider: the sending task was cancelled or the client shut down
        /// before an answer came. The push may or may not have arrived; it goes back to the queue without
        /// using one of its attempts.
        case interrupted
    }

    public var disposition: Disposition
    /// The HTTP status, or nil when no response arrived.
    public var status: Int?
    /// Apple's or Google's reason string (`BadDeviceToken`, `UNREGISTERED`...), or a transport error code.
    public var reason: String?
    /// The `apns-id` the provider answered with.
    public var apnsID: UUID?
    /// The token the push actually went to when a router sent it to another of the installation's tokens
    /// (its FCM token instead of its APNs token): token hygiene applies to this one. Nil: the push's own.
    public var token: String?
    public var tokenType: TokenType?

    public init(
        disposition: Disposition, status: Int? = nil, reason: String? = nil, apnsID: UUID? = nil,
        token: String? = nil, tokenType: TokenType? = nil
    ) {
        self.disposition = disposition
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.token = token
        self.tokenType = tokenType
    }
}

extension PushOutcome {
    /// The outcome of a push that got no response: cut off by this process (cancelled, shut down) or failed
    /// on the way (transport, timeout), which is worth another attempt.
    init(noResponse error: HTTP2ClientError, apnsID: UUID? = nil) {
        let cutOff = error.code == .cancelled || error.code == .shutdown
        self.init(
            disposition: cutOff ? .interrupted : .retry(after: nil), reason: error.code.rawValue, apnsID: apnsID)
    }
}
