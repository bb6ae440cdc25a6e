/// Versions as text that sorts like the version: `2.10.0` after `2.9.0`, `2.3` equal to `2.3.0`.
///
/// The key is built from the leading run of dot-separated numbers (`2.3.1-beta` is `2.3.1`, `v2` has none). Each
/// number loses its leading zeros and is written as one letter for its length (`@` for zero, `A` for one digit,
/// `B` for two...) followed by its digits; trailing zero components are dropped. Byte order of keys is then
/// numeric order of versions, so SQL compares keys with plain `<` in the `C` collation and can index them.
///
/// - Important: PostgreSQL computes the same key with its `tidings_version_key` function (its schema version 8) and
///   SQLite calls this one; the two must stay identical.
public enum VersionKey {
    /// The most digits one component may have; a longer one makes the version unorderable.
    public static let maximumComponentDigits = 30

    /// The key of `version`, or nil when it does not start with a number (or a component is too long).
    public static func key(_ version: String) -> String? {
        var components: [Substring.UTF8View] = []
        let bytes = Substring(version).utf8
        var index = bytes.startIndex
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        while index < bytes.endIndex {
            let start = index
            while index < bytes.endIndex, isDigit(bytes[index]) { index = bytes.index(after: index) }
            guard start < index else { break }
            components.append(bytes[start..<index])
            // Another component only when a digit follows the dot.
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "."),
                bytes.index(after: index) < bytes.endIndex, isDigit(bytes[bytes.index(after: index)])
            else { break }
            index = bytes.index(after: index)
        }
        guard !components.isEmpty else { return nil }
        var digits = components.map { component in Substring(component.drop(while: { $0 == UInt8(ascii: "0") })) }
        while digits.count > 1, digits.last?.isEmpty == true { digits.removeLast() }
        guard digits.allSatisfy({ $0.utf8.count <= maximumComponentDigits }) else { return nil }
        return digits.map { String(UnicodeScalar(UInt8(64 + $0.utf8.count))) + $0 }.joined(separator: ".")
    }
}
