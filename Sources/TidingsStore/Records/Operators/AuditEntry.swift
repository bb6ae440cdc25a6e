/// One write an operator made through the console: who, what, when, on what, and how it ended.
public struct AuditEntry: Sendable, Hashable {
    /// Assigned by the store, increasing; zero before the entry is stored.
    public var sequence: Int64
    /// Milliseconds since 1970.
    public var at: Int64
    public var operatorName: String
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
        status: Int, address: String? = nil
    ) {
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
