import Foundation

/// A request target split into its path, escapes kept (the router decodes each segment itself, so an
/// encoded `/` stays inside its segment), and its query parameters, decoded.
enum RequestTarget {
    struct Query {
        var parameters: [(name: String, value: String)] = []
        /// The first parameter whose name or value is not percent-encoded UTF-8, named as written when the
        /// name itself cannot be decoded.
        var undecodable: String?
    }

    static func split(_ target: String) -> (path: String, query: Query) {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target, Query()) }
        let path = String(target[..<mark])
        var query = Query()
        for piece in target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                (name, value) = (piece[..<equals], piece[piece.index(after: equals)...])
            } else {
                (name, value) = (piece, "")
            }
            let decodedName = decodeComponent(name)
            let decodedValue = decodeComponent(value)
            if decodedName == nil || decodedValue == nil, query.undecodable == nil {
                query.undecodable = decodedName ?? String(name)
            }
            query.parameters.append((name: decodedName ?? String(name), value: decodedValue ?? String(value)))
        }
        return (path, query)
    }

    /// `+` is a space and `%XX` a byte in a query component; nil when the escapes are not UTF-8 (`%FF`)
    /// or malformed (`%G1`, a lone `%`).
    static func decodeComponent(_ text: Substring) -> String? {
        if !text.utf8.contains(UInt8(ascii: "%")) && !text.utf8.contains(UInt8(ascii: "+")) { return String(text) }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
