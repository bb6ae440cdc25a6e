import Foundation

/// Why a batch did not reach its destination, and whether sending it again may help.
public struct ForwardingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// A transport failure, a timeout, a 5xx, 408 or 429: the worker sends the batch again later.
        case retryable
        /// Any other 4xx, or a batch the destination can never take: the batch goes to the dead-letter list.
        case permanent
    }

    public var kind: Kind
    /// The destination's HTTP status, when it answered.
    public var status: Int?
    /// What went wrong, safe to log and show (never a secret).
    public var message: String
    /// The destination's `Retry-After`, a floor for the next attempt.
    public var retryAfter: Duration?

    public init(kind: Kind, status: Int? = nil, message: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String {
        (status.map { "HTTP \($0): " } ?? "") + message
    }

    /// The failure an HTTP answer other than 2xx means: 408, 429 and 5xx are worth another try, the other
    /// 4xx are not (the same batch would be refused again).
    public static func classify(status: Int, headers: [String: String], body: [UInt8]) -> ForwardingFailure {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        let message = text.isEmpty ? "the destination refused the batch" : text
        let retryable = status == 408 || status == 429 || status >= 500 || status < 400
        return ForwardingFailure(
            kind: retryable ? .retryable : .permanent, status: status, message: message,
            retryAfter: headers["retry-after"].flatMap(Self.retryAfter))
    }

    /// `Retry-After` as delta-seconds (the HTTP-date form is rare from ingest endpoints and taken as absent).
    static func retryAfter(_ value: String) -> Duration? {
        guard let seconds = Int64(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(min(seconds, 3600))
    }
}
