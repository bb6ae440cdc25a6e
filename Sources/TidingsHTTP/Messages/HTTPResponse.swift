import Foundation

/// What a handler answers: a status, headers, and either bytes or a stream of bytes.
public struct HTTPResponse: Sendable {
    /// How the body is produced.
    public enum Content: Sendable {
        /// A body known in full; sent with `Content-Length`.
        case bytes(Data)
        /// A body written piece by piece (NDJSON or CSV exports); sent chunked, with back-pressure, unless
        /// the headers declare a `Content-Length` (the producer must then write exactly that many bytes).
        case stream(HTTPBodyStream)
    }

    public var status: Int
    public var headers: HTTPHeaders
    public var content: Content

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.content = .bytes(body)
    }

    /// A response whose body `write` produces while the client reads it.
    public init(status: Int, headers: HTTPHeaders = [:], stream write: @escaping HTTPBodyStream.Producer) {
        self.status = status
        self.headers = headers
        self.content = .stream(HTTPBodyStream(write))
    }

    /// The body when it is known in full; empty for a stream. Setting it replaces any stream.
    public var body: Data {
        get {
            if case .bytes(let data) = content { return data }
            return Data()
        }
        set { content = .bytes(newValue) }
    }

    /// A JSON response: `value` encoded, `Content-Type: application/json`.
    public static func json(_ value: some Encodable, status: Int = 200, headers: HTTPHeaders = [:]) throws
        -> HTTPResponse
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: try encoder.encode(value))
    }

    /// The JSON error body `{"error":{"code","message"}}` for `error`, with its status and the error's own
    /// headers (`Retry-After`, `WWW-Authenticate`); `headers` are added after them.
    public static func error(_ error: HTTPError, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var all = error.headers
        for (name, value) in headers { all[name] = value }
        all["Content-Type"] = "application/json"
        return HTTPResponse(status: error.status, headers: all, body: error.jsonBody)
    }
}

/// The whole server is one function from request to response, so most tests call it in process.
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse
