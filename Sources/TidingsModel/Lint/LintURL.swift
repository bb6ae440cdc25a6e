/// The parts of a URL the lint rules need, read by hand so that the result does not depend on how
/// Foundation's `URL(string:)` repairs invalid input on each platform. Works on UTF-8 bytes: URLs that pass
/// are ASCII.
struct LintURL: Hashable {
    /// Lowercased.
    var scheme: String
    /// The host after `//`, without user info or port; nil when the URL has no authority.
    var host: String?
    /// The path, without query and fragment.
    var path: String

    /// Parses an absolute URL (`scheme:rest`); nil when `text` has no valid scheme or holds characters a URL
    /// cannot (spaces, controls, non-ASCII must be percent-encoded).
    init?(_ text: String) {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let scheme = bytes[..<colon]
        guard let first = scheme.first, first.isASCIILetter,
            scheme.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return nil }
        self.scheme = String(decoding: scheme, as: UTF8.self).lowercased()

        var rest = bytes[bytes.index(after: colon)...]
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            rest = rest[..<end]
        }
        let slash = UInt8(ascii: "/")
        if rest.starts(with: [slash, slash]) {
            let authorityStart = rest.index(rest.startIndex, offsetBy: 2)
            let authorityEnd = rest[authorityStart...].firstIndex(of: slash) ?? rest.endIndex
            var host = rest[authorityStart..<authorityEnd]
            if let at = host.lastIndex(of: UInt8(ascii: "@")) { host = host[host.index(after: at)...] }
            if host.first == UInt8(ascii: "["), let close = host.firstIndex(of: UInt8(ascii: "]")) {
                host = host[...close]
            } else if let portColon = host.firstIndex(of: UInt8(ascii: ":")) {
                host = host[..<portColon]
            }
            self.host = String(decoding: host, as: UTF8.self)
            rest = rest[authorityEnd...]
        } else {
            self.host = nil
        }
        self.path = String(decoding: rest, as: UTF8.self)
    }

    /// Why `text` is not a usable absolute URL, for a lint message; nil when it is one.
    static func problem(in text: String) -> String? {
        if text.isEmpty { return "is empty" }
        if text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "contains a space or control character; percent-encode it"
        }
        if text.utf8.contains(where: { $0 > 0x7F }) {
            return "contains non-ASCII characters; percent-encode them (URL(string:) returns nil before iOS 17)"
        }
        guard let url = LintURL(text) else { return "is not an absolute URL (it needs a scheme such as https:)" }
        if (url.scheme == "http" || url.scheme == "https") && (url.host ?? "").isEmpty {
            return "has no host"
        }
        return nil
    }

    /// Whether this is an `http` or `https` URL with a host.
    var isWeb: Bool {
        (scheme == "http" || scheme == "https") && !(host ?? "").isEmpty
    }

    /// The extension of the path's last component, lowercased, without the dot.
    var pathExtension: String? {
        let name = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path[...]
        return LintURL.fileExtension(of: String(name))
    }

    /// The extension of a file name, lowercased, without the dot; nil when there is none.
    static func fileExtension(of name: String) -> String? {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool {
        (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
    }

    fileprivate var isASCIIDigit: Bool {
        self >= 0x30 && self <= 0x39
    }
}
