import TidingsModel

/// One erasure request for ``ErasureStore/eraseUser(_:)``.
public struct UserErasure: Sendable, Hashable {
    public var appID: String
    public var userID: String
    /// What names the user where a count or a trail must stay (message plans, audit targets):
    /// `erased:` and a keyed digest, the same for every erasure of the same id in the app.
    public var pseudonym: String
    /// The keyed digest of the user id the tombstone keeps.
    public var digest: [UInt8]
    /// Unix milliseconds.
    public var erasedAt: Int64

    public init(appID: String, userID: String, pseudonym: String, digest: [UInt8], erasedAt: Int64) {
        self.appID = appID
        self.userID = userID
        self.pseudonym = pseudonym
        self.digest = digest
        self.erasedAt = erasedAt
    }

    /// The user id as a JSON string (`"alice"`, escaped): what is searched for in stored JSON text, so that
    /// `al` does not match `alice`.
    public var quotedUserID: String {
        (try? JSONValue.string(userID).serializedString()) ?? "\"\(userID)\""
    }

    /// The audit target of the user's routes, `/v1/users/<id>`; the user's subpaths start with it and `/`.
    public var auditTargetPrefix: String { "/v1/users/" + userID }
}
