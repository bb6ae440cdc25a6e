import Foundation

/// One HTTP request as the SDK builds it: method, URL, headers, body bytes and a timeout.
public struct TransportRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header fields by name; names are sent as written here.
    public var headers: [String: String]
    public var body: [UInt8]
    /// How long the whole exchange may take before it fails with ``TransportError/Code/timeout``.
    public var timeout: Duration

    public init(
        method: String, url: URL, headers: [String: String] = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
