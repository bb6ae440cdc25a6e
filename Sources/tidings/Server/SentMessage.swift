import TidingsModel

/// The answer to `POST /v1/messages`: the new message's id and how its target resolved.
struct SentMessage: Sendable, Hashable {
    var messageID: String
    /// Installations resolved, skipped ones included.
    var targets: Int
    /// Installations queued for sending; nil if the server did not say.
    var queued: Int?
    /// Skipped installations by reason (`no_consent`, `no_token`, `unknown_installation`, ...).
    var skipped: [String: Int]
    /// The whole answer, for `--json`.
    var json: JSONValue
}
