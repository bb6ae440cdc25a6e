/// A signed-in console session, kept on the server: the browser holds only its random id in a cookie, and the
/// store only that id's SHA-256 digest, so a copy of the store signs no one in.
public struct OperatorSession: Sendable, Hashable {
    /// SHA-256 of the session id the cookie carries.
    public var idDigest: [UInt8]
    public var operatorName: String
    /// The value every write must echo in `X-CSRF-Token`; the page reads it from `GET /v1/session`.
    public var csrfToken: String
    /// Milliseconds since 1970: the absolute timeout counts from here.
    public var createdAt: Int64
    /// The last request the session made: the idle timeout counts from here.
    public var lastSeenAt: Int64

    public init(idDigest: [UInt8], operatorName: String, csrfToken: String, createdAt: Int64, lastSeenAt: Int64) {
        self.idDigest = idDigest
        self.operatorName = operatorName
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}
