/// One route: a method, a path pattern such as `/v1/installations/{installation_id}`, and its handler.
public struct HTTPRoute: Sendable {
    public var method: String
    /// Literal segments and `{name}` parameters, one per path segment.
    public var pattern: String
    public var handler: HTTPHandler

    public init(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
    }

    var segments: [Substring] { pattern.split(separator: "/", omittingEmptySubsequences: true) }
}
