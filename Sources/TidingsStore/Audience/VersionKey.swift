/// Versions as text that sorts like the version: `2.10.0` after `2.9.0`, `2.3` equal to `2.3.0`.
///
/// The key is built from the leading run of dot-separated numbers (`2.3.1-beta` is `2.3.1`, `v2` has none). Each
/// number loses its leading zeros and is written as one letter for its length (`@` for zero, `A` for one digit,
/// `B` for two...) followed by its digits; trailing zero components are dropped. Byte order of keys is then
/// numeric order of versions, so SQL compares keys with plain `<` in the `C` collation and can index them.
///
/// - Important: PostgreSQL stores this key of each installation's app version (`app_version_key`, written by
///   tidingsd) and computes the same key with its `tidings_version_key` function (its schema version 8) for OS
///   versions and for rows an earlier tidingsd wrote; SQLite calls this one. The two must stay identical.
public enum VersionKey {
    /// The most digits one component may have; a longer one makes the version unorderable.
    public static let maximumComponentDigits = 30

    /// The key of `version`, or nil when it does not start with a number (or a component is too long).
    public static func key(_ version: String) -> String? {
        var version = version
        return version.withUTF8 { bytes in key(utf8: bytes).map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The key of a version given as UTF-8 bytes, as UTF-8 bytes: what SQLite's `tidings_version_key` calls once
    /// per row, so it works on the bytes without making strings.
    public static func key(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var key: [UInt8] = []
        key.reserveCapacity(bytes.count + 4)
        var index = 0
        var components = 0
        // Zero components seen since the last non-zero one: written only if a non-zero one follows.
        var pendingZeros = 0
        while index < bytes.count {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard start < index else { break }
            var first = start
            while first < index, bytes[first] == UInt8(ascii: "0") { first += 1 }
            let length = index - first
            guard length <= maximumComponentDigits else { return nil }
            if length == 0 && components > 0 {
                pendingZeros += 1
            } else {
                for _ in 0..<pendingZeros { key += [UInt8(ascii: "."), UInt8(ascii: "@")] }
                pendingZeros = 0
                if components > 0 { key.append(UInt8(ascii: ".")) }
                key.append(UInt8(ascii: "@") + UInt8(length))
                key += bytes[first..<index]
            }
            components += 1
            // Another component only when a digit follows the dot.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), isDigit(bytes[index + 1]) else { break }
            index += 1
        }
        return components == 0 ? nil : key
    }
}
