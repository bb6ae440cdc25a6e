/// One state-changing call, by a console operator or an API key: who, what, when, on what, and how it ended.
/// Never a secret: the route and path, never the body or headers.
public struct AuditEntry: Sendable, Hashable {
    /// What made the call.
    public enum Credential: String, Sendable, Hashable, CaseIterable {
        /// A console session; ``AuditEntry/operatorName`` names the operator.
        case `operator`
        case appKey = "app_key"
        case serverKey = "server_key"
        case adminKey = "admin_key"
        /// tidingsd itself, acting on its own (a split test's winner picked when its test ended).
        case server
    }

    /// Assigned by the store, increasing; zero before the entry is stored.
    public var sequence: Int64
    /// Milliseconds since 1970.
    public var at: Int64
    /// The operator's name; empty for a call made with a key.
    public var operatorName: String
    /// What made the call; ``Credential/operator`` for entries written before keys were audited.
    public var credential: Credential
    /// The key's id for a call made with a key; nil for an operator.
    public var keyID: String?
    /// The operation: the method and route, for example `POST /v1/messages`.
    public var action: String
    /// The path the write named, for example `/v1/messages/msg_…`.
    public var target: String
    /// The app the write was made for; nil for the administration API and sign-in.
    public var appID: String?
    /// The HTTP status it was answered with.
    public var status: Int
    /// The client address the write came from (a trusted proxy's client, else the TCP peer); nil for entries
    /// written before addresses were recorded.
    public var address: String?

    public init(
        sequence: Int64 = 0, at: Int64, operatorName: String, action: String, target: String, appID: String?,
        status: Int, address: String? = nil, credential: Credential = .operator, keyID: String? = nil
    ) {
        self.credential = credential
        self.keyID = keyID
        self.sequence = sequence
        self.at = at
        self.operatorName = operatorName
        self.action = action
        self.target = target
        self.appID = appID
        self.status = status
        self.address = address
    }
}
