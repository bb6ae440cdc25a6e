import Foundation

/// One HTTP/2 request for ``CurlMultiClient``: a URL, header lines, an optional body and a deadline.
public struct HTTP2Request: Sendable, Hashable {
    public var method: String
    /// The absolute URL, `https://` (HTTP/2 over TLS) or `http://` (h2c with prior knowledge).
    public var url: String
    /// Header fields in send order; names should be lower-case, as HTTP/2 requires.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The whole exchange must finish within this time, or the request fails with `timeout`.
    public var timeout: Duration

    public init(
        method: String = "POST", url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of the first header named `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    public static func == (lhs: HTTP2Request, rhs: HTTP2Request) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeout == rhs.timeout
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
        for header in headers {
            hasher.combine(header.name)
            hasher.combine(header.value)
        }
    }
}
