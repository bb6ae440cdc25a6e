import Foundation

/// The checks HTTP/1.1 (RFC 9112) asks of a server before it trusts where a request ends, which
/// libmicrohttpd 0.9.75 leaves to the application.
///
/// Behind a load balancer, a request the two parse differently (two lengths, a length and chunks, a
/// coding one of them ignores) lets a client hide a second request inside the first ("request
/// smuggling"). Such a request is refused, and its connection closed, before any handler runs.
enum RequestFraming {
    /// Nil when the head is sound; otherwise the error to answer with `Connection: close`.
    /// - Parameters:
    ///   - version: the request line's protocol, such as `HTTP/1.1`.
    ///   - headers: every header line, in order, as received.
    static func refusal(version: String, headers: [(name: String, value: String)]) -> HTTPError? {
        if let name = headers.first(where: { !isToken($0.name) })?.name {
            return refuse(400, "malformed_header", "the header name \"\(name)\" is not a valid field name")
        }
        let hosts = headers.filter { HTTPHeaders.sameName($0.name, "Host") }.count
        if hosts > 1 || (hosts == 0 && version == "HTTP/1.1") {
            return refuse(400, "invalid_host", "a request must carry exactly one Host header; this one has \(hosts)")
        }
        let lengths = Set(values(of: "Content-Length", in: headers))
        let codings = values(of: "Transfer-Encoding", in: headers)
        if !codings.isEmpty {
            if !lengths.isEmpty {
                return refuse(
                    400, "conflicting_framing", "a request may carry Transfer-Encoding or Content-Length, not both")
            }
            if codings.map({ $0.lowercased() }) != ["chunked"] {
                return refuse(
                    501, "unsupported_transfer_encoding",
                    "the only transfer coding accepted is chunked; this request has \(codings.joined(separator: ", "))")
            }
        }
        if lengths.count > 1 {
            return refuse(
                400, "conflicting_content_length",
                "the request carries different Content-Length values: \(lengths.sorted().joined(separator: ", "))")
        }
        return nil
    }

    /// The comma-separated elements of every `name` header, trimmed, empty ones left out.
    private static func values(of name: String, in headers: [(name: String, value: String)]) -> [String] {
        headers.filter { HTTPHeaders.sameName($0.name, name) }.flatMap { header in
            header.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// RFC 9110 `token`: visible ASCII except the separators, so no whitespace before the colon.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
    }

    private static func refuse(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: ["Connection": "close"])
    }
}
