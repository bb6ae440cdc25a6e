/// One route: a method, a path pattern such as `/v1/installations/{installation_id}`, and its handler.
///
/// A route whose work never waits (a bounded store call, no network) may be declared with an
/// ``ImmediateHTTPHandler``: the server then answers it on the network thread that read the request,
/// without a task or a suspended connection (see ``HTTPServer``). Its ``handler`` runs the same code,
/// so in-process callers and the standard pipeline see no difference.
public struct HTTPRoute: Sendable {
    public var method: String
    /// Literal segments and `{name}` parameters, one per path segment.
    public var pattern: String {
        didSet { segments = Self.split(pattern) }
    }
    public var handler: HTTPHandler
    /// The same handler as a plain function, for routes that never wait; nil for the others.
    public var immediate: ImmediateHTTPHandler?
    /// `pattern` split once, so that matching a request does not split it again.
    private(set) var segments: [Substring]

    public init(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
        immediate = nil
        segments = Self.split(pattern)
    }

    /// A route whose handler never waits, so the server may answer it on its network thread.
    ///
    /// A static function rather than an initialiser, so that a trailing closure without `await` given to
    /// ``init(_:_:_:)`` never turns into an immediate route by overload resolution.
    public static func immediate(
        _ method: String, _ pattern: String, _ handler: @escaping ImmediateHTTPHandler
    ) -> HTTPRoute {
        var route = HTTPRoute(method, pattern) { request in try handler(request) }
        route.immediate = handler
        return route
    }

    private static func split(_ pattern: String) -> [Substring] {
        pattern.split(separator: "/", omittingEmptySubsequences: true)
    }
}

/// A handler that answers without waiting: it must only do bounded work (store calls, parsing), never
/// sleep or wait for the network, because it runs on one of the server's few network threads.
public typealias ImmediateHTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse
