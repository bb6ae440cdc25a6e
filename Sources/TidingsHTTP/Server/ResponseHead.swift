import Foundation

/// The status line and header section of a response, as sent.
enum ResponseHead {
    /// How the body that follows the head is delimited.
    enum Framing {
        /// `Content-Length`; the body is this many bytes (none are sent for `HEAD`).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Neither: the body ends when the connection closes (a stream to an HTTP/1.0 client), or there is
        /// none (1xx, 204, 304).
        case none
    }

    /// The head's bytes. The handler's own `Content-Length`, `Transfer-Encoding` and `Connection` are
    /// replaced by what the server does; a header whose name or value would break the head (a line break,
    /// a control character) is left out.
    static func bytes(
        status: Int, headers: HTTPHeaders, framing: Framing, closing: Bool, keepAliveNamed: Bool, date: String
    ) -> Data {
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nDate: \(date)\r\n"
        for (name, value) in headers
        where !HTTPHeaders.sameName(name, "Content-Length") && !HTTPHeaders.sameName(name, "Transfer-Encoding")
            && !HTTPHeaders.sameName(name, "Connection") && !HTTPHeaders.sameName(name, "Date")
            && isSafe(name) && isSafe(value)
        {
            head += "\(name): \(value)\r\n"
        }
        switch framing {
        case .length(let count): head += "Content-Length: \(count)\r\n"
        case .chunked: head += "Transfer-Encoding: chunked\r\n"
        case .none: break
        }
        if closing {
            head += "Connection: close\r\n"
        } else if keepAliveNamed {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        return Data(head.utf8)
    }

    /// True for statuses that never carry a body (RFC 9110 §6.4.1).
    static func hasNoBody(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    private static func isSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
