/// A request's line and headers as read from the connection.
///
/// Nothing is decoded beyond making Strings of the bytes (the target keeps its percent-escapes, header names their
/// letter case), so that the framing checks and the router see what the client sent.
struct RequestHead: Sendable {
    /// The method as sent, such as `GET`: an RFC 9110 token, its letter case kept (methods are case-sensitive).
    var method: String
    /// The request-target exactly as sent, percent-escapes kept, such as `/v1/x?a=%20`.
    var target: String
    /// `HTTP/1.1` or `HTTP/1.0`, the only versions accepted.
    var version: String
    /// Every header line in order, names as sent, values without their leading and trailing spaces and tabs.
    var headers: [(name: String, value: String)]
    /// Bytes of the head, from the first byte given to the parser through the blank line that ends it (including any
    /// empty lines skipped before the request line): where the body, or the next pipelined request, starts.
    var length: Int
}
