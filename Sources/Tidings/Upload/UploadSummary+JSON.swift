extension UploadSummary {
    /// The summary as JSON, for `tidings queue flush --json`: counts, `remaining`, `next_retry_at`
    /// (milliseconds since 1970) and `error` (`{"code", "message"}`), with absent values left out.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "reason": .string(reason.rawValue),
            "requests": .integer(Int64(requests)),
            "sent": .integer(Int64(sent)),
            "accepted": .integer(Int64(accepted)),
            "duplicates": .integer(Int64(duplicates)),
            "rejected": .integer(Int64(rejected)),
            "expired": .integer(Int64(expired)),
            "deadline_reached": .bool(deadlineReached),
        ]
        if let remaining { object["remaining"] = .integer(Int64(remaining)) }
        if let nextRetryAt { object["next_retry_at"] = .integer(nextRetryAt.millisecondsSince1970) }
        if let error { object["error"] = ["code": .string(error.code), "message": .string(error.message)] }
        return .object(object)
    }
}
