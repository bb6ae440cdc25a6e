/// The answer to an ``HTTP2Request``: status, header fields (names lower-cased) and body.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
