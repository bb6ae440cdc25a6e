import Foundation

/// What a handler answers.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The whole server is one function from request to response, so most tests call it in process.
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse
