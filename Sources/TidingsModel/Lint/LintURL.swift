/// The parts of a URL the lint rules need, read by hand so that the result does not depend on how
/// Foundation's `URL(string:)` repairs invalid input on each platform.
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
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else { return nil }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        self.scheme = scheme.lowercased()
        var rest = Substring(text[text.index(after: colon)...])
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if rest.hasPrefix("//") {
            let authority = rest.dropFirst(2).prefix { $0 != "/" }
            rest = rest.dropFirst(2 + authority.count)
            var host = authority
            if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                host = host[...close]
            } else if let portColon = host.firstIndex(of: ":") {
                host = host[..<portColon]
            }
            self.host = String(host)
        } else {
            self.host = nil
        }
        self.path = String(rest)
    }

    /// Why `text` is not a usable absolute URL, for a lint message; nil when it is one.
    static func problem(in text: String) -> String? {
        if text.isEmpty { return "is empty" }
        if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "contains a space or control character; percent-encode it"
        }
        if text.unicodeScalars.contains(where: { $0.value > 0x7F }) {
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
        LintURL.fileExtension(of: path.split(separator: "/").last.map(String.init) ?? "")
    }

    /// The extension of a file name, lowercased, without the dot; nil when there is none.
    static func fileExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool {
        (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }

    fileprivate var isASCIIDigit: Bool {
        value >= 0x30 && value <= 0x39
    }
}
