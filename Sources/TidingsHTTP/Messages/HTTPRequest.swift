import Foundation

/// One HTTP request as a handler sees it: fully read, limits already enforced by the server.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded per segment by the router.
    public var path: String
    /// Query parameters in order; a repeated name appears more than once.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: Data
    /// Parameters bound by the router, for example `installation_id` for `/v1/installations/{installation_id}`.
    public var pathParameters: [String: String]
    /// A unique id for logs and the `X-Request-Id` response header.
    public var requestID: String
    /// The peer's IP address as the server's socket sees it (`127.0.0.1`, `::1`); nil when a request did
    /// not come over a socket (in-process callers). Behind a reverse proxy it is the proxy's address: the key for per-client limits only
    /// when clients connect directly.
    public var remoteAddress: String?

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:],
        body: Data = Data(), pathParameters: [String: String] = [:], requestID: String = UUID().uuidString,
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }

    /// The first query parameter called `name`.
    public func queryValue(_ name: String) -> String? {
        query.first(where: { $0.name == name })?.value
    }
}
