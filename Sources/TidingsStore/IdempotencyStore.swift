/// Answers kept under `Idempotency-Key`s, so that a retried create request is answered again instead of
/// done twice, by whichever instance sharing the store receives the retry.
public protocol IdempotencyStore: Sendable {
    /// Takes `record`'s `(scope, key)` for a request about to run, unless a live record holds it.
    ///
    /// A record whose ``IdempotencyRecord/expiresAt`` has passed, or that is still running past its
    /// ``IdempotencyRecord/lockedUntil`` (its instance died), is replaced. Expired records of every scope are
    /// removed on the way. Atomic across instances: of two claims of one key, one gets ``IdempotencyClaim/claimed``.
    func claimIdempotencyKey(_ record: IdempotencyRecord, now: Int64) throws -> IdempotencyClaim
    /// Stores the answer of the claimed request under its key.
    func completeIdempotencyKey(scope: String, key: String, response: IdempotentResponse) throws
    /// Gives up a claim whose request did nothing to remember (it failed), so a retry runs again.
    func releaseIdempotencyKey(scope: String, key: String) throws
}

/// One `Idempotency-Key` of one credential: the request it was first used with and, once answered, the answer.
public struct IdempotencyRecord: Sendable, Hashable {
    /// Whose key it is: the app and the credential (a key id, or a console operator).
    public var scope: String
    public var key: String
    /// The SHA-256 of the request (method, path and body): the same key with another request is refused.
    public var fingerprint: [UInt8]
    /// Nil while the request runs.
    public var response: IdempotentResponse?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Until when a request still running holds the key; past it, a claim takes it over.
    public var lockedUntil: Int64

    public init(
        scope: String, key: String, fingerprint: [UInt8], response: IdempotentResponse? = nil, createdAt: Int64,
        expiresAt: Int64, lockedUntil: Int64
    ) {
        self.scope = scope
        self.key = key
        self.fingerprint = fingerprint
        self.response = response
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lockedUntil = lockedUntil
    }
}

/// A stored answer: status, headers (as a JSON array of `[name, value]` pairs) and body.
public struct IdempotentResponse: Sendable, Hashable {
    public var status: Int
    public var headers: String
    public var body: [UInt8]

    public init(status: Int, headers: String, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What ``IdempotencyStore/claimIdempotencyKey(_:now:)`` found.
public enum IdempotencyClaim: Sendable, Hashable {
    /// The key is the caller's to run the request under.
    case claimed
    /// A live record holds it: answered (its ``IdempotencyRecord/response``) or still running.
    case existing(IdempotencyRecord)
}
