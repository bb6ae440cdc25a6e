import Foundation

/// The checks HTTP/1.1 (RFC 9112) asks of a server before it trusts where a request ends, beyond
/// parsing the head (``RequestHeadParser``).
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
        // One pass, as it runs for every request; the lists are built only for the rare headers they hold.
        var hosts = 0
        var lengths: [String] = []
        var codings: [String] = []
        var transferEncodingLines = 0
        for (name, value) in headers {
            if !isToken(name) {
                return refuse(400, "malformed_header", "the header name \"\(name)\" is not a valid field name")
            }
            if HTTPHeaders.sameName(name, "Host") {
                hosts += 1
                if !isValidHost(value) {
                    let shown = value.count > 100 ? value.prefix(100) + "…" : Substring(value)
                    return refuse(
                        400, "invalid_host",
                        "the Host header \"\(shown)\" is not a host name or address with an optional port, "
                            + "as in api.example.com:8443")
                }
            } else if HTTPHeaders.sameName(name, "Content-Length") {
                lengths += elements(of: value)
            } else if HTTPHeaders.sameName(name, "Transfer-Encoding") {
                transferEncodingLines += 1
                codings += elements(of: value)
            }
        }
        if hosts > 1 || (hosts == 0 && version == "HTTP/1.1") {
            return refuse(400, "invalid_host", "a request must carry exactly one Host header; this one has \(hosts)")
        }
        if transferEncodingLines > 0 {
            // RFC 9112, section 6.1: HTTP/1.0 has no transfer codings, so a 1.0 intermediary reads such a request
            // by its Content-Length, or to the end of the connection; its framing is faulty whatever it says.
            if version == "HTTP/1.0" {
                return refuse(
                    400, "conflicting_framing",
                    "an HTTP/1.0 request may not carry Transfer-Encoding; send HTTP/1.1, or a Content-Length")
            }
            if !lengths.isEmpty {
                return refuse(
                    400, "conflicting_framing", "a request may carry Transfer-Encoding or Content-Length, not both")
            }
            if codings.map({ $0.lowercased() }) != ["chunked"] {
                let named = codings.isEmpty ? "none" : codings.joined(separator: ", ")
                return refuse(
                    501, "unsupported_transfer_encoding",
                    "the only transfer coding accepted is chunked; this request has \(named)")
            }
        }
        if let first = lengths.first, lengths.contains(where: { $0 != first }) {
            return refuse(
                400, "conflicting_content_length",
                "the request carries different Content-Length values: \(lengths.joined(separator: ", "))")
        }
        return nil
    }

    /// The path of a request target (its query already split off, ``RequestTarget``). A target in absolute
    /// form (`http://host/path`), which a client sends when it takes the server for a proxy, must be
    /// accepted (RFC 9112, section 3.2.2): it is read as its path, `/` when it has none.
    static func path(ofTarget target: String) -> String {
        guard !target.hasPrefix("/") else { return target }
        let lowercased = target.prefix(8).lowercased()
        guard lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://"),
            let authority = target.range(of: "://")
        else { return target }
        let afterAuthority = target[authority.upperBound...].firstIndex(of: "/")
        return afterAuthority.map { String(target[$0...]) } ?? "/"
    }

    /// The comma-separated elements of a header value, trimmed, empty ones left out.
    private static func elements(of value: String) -> [String] {
        // Nearly every value is one bare element (`Content-Length: 18`): no splitting or trimming for it, which
        // took 2% of the upsert run's CPU through Foundation.
        let bare = !value.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")
        }
        if bare { return value.isEmpty ? [] : [value] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// RFC 9110, section 7.2: `Host = uri-host [ ":" port ]`, the host of RFC 3986 (a registered name or IPv4
    /// address, percent-escapes allowed, or an IP literal in brackets) and a port of digits. RFC 9112, section 3.2,
    /// has a server refuse any other value, such as one with user information (`user@host`), since a proxy in
    /// front may read the host out of it differently. An empty value is allowed: it is what a client sends when
    /// the target has no authority.
    static func isValidHost(_ value: String) -> Bool {
        let bytes = value.utf8
        var index = bytes.startIndex
        if bytes.first == UInt8(ascii: "[") {
            // An IPv6 address or IPvFuture: hex digits, colons, dots, and for IPvFuture unreserved and sub-delims.
            index = bytes.index(after: index)
            let literalStart = index
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: "]") {
                guard isHostByte(bytes[index]) || bytes[index] == UInt8(ascii: ":") else { return false }
                index = bytes.index(after: index)
            }
            guard index < bytes.endIndex, index > literalStart else { return false }
            index = bytes.index(after: index)
        } else {
            var escapeDigits = 0
            while index < bytes.endIndex, escapeDigits > 0 || bytes[index] != UInt8(ascii: ":") {
                let byte = bytes[index]
                if escapeDigits > 0 {
                    guard ChunkedBodyDecoder.hexValue(byte) != nil else { return false }
                    escapeDigits -= 1
                } else if byte == UInt8(ascii: "%") {
                    escapeDigits = 2
                } else if !isHostByte(byte) {
                    return false
                }
                index = bytes.index(after: index)
            }
            guard escapeDigits == 0 else { return false }
        }
        guard index < bytes.endIndex else { return true }
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        return bytes[bytes.index(after: index)...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// RFC 3986 `unreserved` and `sub-delims`: what a registered name holds besides percent-escapes.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// RFC 9110 `token`, so no whitespace before the colon. ``RequestHeadParser`` refuses such a name
    /// already; this keeps the rule for heads that come from elsewhere.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(RequestHeadParser.isTokenByte)
    }

    private static func refuse(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: ["Connection": "close"])
    }
}
