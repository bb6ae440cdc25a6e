/// One route: a method, a path pattern such as `/v1/installations/{installation_id}`, and its handler.
///
/// A route whose work never waits (a bounded store read, no network) may be declared with
/// ``immediate(_:_:_:)``: the server then answers it on the network thread that read the request, without
/// a task or a suspended connection (see ``HTTPServer``). A route whose plain work may wait long on other
/// requests (an event batch joining a group commit) is declared with ``blocking(_:_:_:)``: the server runs
/// it on a worker thread while its connection is suspended, so the network thread goes on reading. The
/// hand-over costs two thread wake-ups, worth it only for a wait much longer than those. A route whose
/// work waits on others but can hand them its answer to send (an installation upsert joining a group
/// commit) is declared with ``replying(_:_:_:)``: the server starts it on the network thread and sends its
/// reply when it comes, the connection suspended meanwhile, so neither a network thread nor a worker
/// waits. Whichever way, its ``handler`` runs the same code, so in-process callers and the standard
/// pipeline see no difference.
public struct HTTPRoute: Sendable {
    public var method: String
    /// Literal segments and `{name}` parameters, one per path segment.
    public var pattern: String {
        didSet { segments = Self.split(pattern) }
    }
    public var handler: HTTPHandler
    /// The same handler as a plain function, for routes that never wait on the network; nil for the others.
    public var immediate: ImmediateHTTPHandler?
    /// Where the server runs ``immediate``.
    public var immediateRunsOn: SynchronousExecution = .networkThread
    /// The same handler started by a plain call, replying through a callback; nil for the other routes.
    public var replying: ReplyingHTTPHandler?
    /// `pattern` split once, so that matching a request does not split it again.
    private(set) var segments: [Substring]

    public init(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
        immediate = nil
        replying = nil
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

    /// A route whose plain handler may wait long on other requests, such as an event batch that joins a
    /// group commit: the server runs it on a worker thread, so no network thread waits.
    public static func blocking(
        _ method: String, _ pattern: String, _ handler: @escaping ImmediateHTTPHandler
    ) -> HTTPRoute {
        var route = immediate(method, pattern, handler)
        route.immediateRunsOn = .workerThread
        return route
    }

    /// A route whose plain handler hands its answer to `reply`, before returning or later from another
    /// thread, such as an upsert that joins a group commit: the server starts it on the network thread,
    /// which goes on serving other connections until the reply comes.
    public static func replying(
        _ method: String, _ pattern: String, _ handler: @escaping ReplyingHTTPHandler
    ) -> HTTPRoute {
        var route = HTTPRoute(method, pattern) { request in
            try await withCheckedThrowingContinuation { continuation in
                do {
                    try handler(request) { continuation.resume(with: $0) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        route.replying = handler
        return route
    }

    private static func split(_ pattern: String) -> [Substring] {
        pattern.split(separator: "/", omittingEmptySubsequences: true)
    }
}

/// A handler that answers without waiting: it must only do bounded work (store calls, parsing), never
/// sleep or wait for the network, because it runs on one of the server's few network threads.
public typealias ImmediateHTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// A handler that starts its work without waiting and hands the outcome to `reply`, exactly once: before
/// returning or later, from any thread. It throws only instead of replying (a request refused before any
/// work starts), never after.
public typealias ReplyingHTTPHandler =
    @Sendable (
        HTTPRequest, _ reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) throws -> Void

/// Where the server runs a route's plain handler.
public enum SynchronousExecution: Sendable {
    /// On the network thread that read the request: for work that never waits on other requests.
    case networkThread
    /// On one of the server's worker threads, with the connection suspended meanwhile.
    case workerThread
}
