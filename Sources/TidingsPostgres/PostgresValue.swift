/// A statement parameter: sent as text, except bytes, which go in binary.
enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case boolean(Bool)
    case bytes([UInt8])

    init(_ value: String?) { self = value.map(PostgresValue.text) ?? .null }
    init(_ value: Int64?) { self = value.map(PostgresValue.integer) ?? .null }
    init(_ value: Bool?) { self = value.map(PostgresValue.boolean) ?? .null }
    init(_ value: [UInt8]?) { self = value.map(PostgresValue.bytes) ?? .null }

    /// The wire bytes (text format except for ``bytes``) and whether they are binary; nil for NULL.
    var encoded: (bytes: [UInt8], binary: Bool)? {
        switch self {
        case .null: nil
        case .text(let value): (Array(value.utf8), false)
        case .integer(let value): (Array(String(value).utf8), false)
        case .boolean(let value): (Array((value ? "t" : "f").utf8), false)
        case .bytes(let value): (value, true)
        }
    }

    /// An array of `elements` in PostgreSQL's text form (`{"a",NULL,"b"}`), to bind to a `$n::type[]`
    /// parameter: every element quoted (bytes as `\x` hex, which `bytea` reads), NULL for ``null``.
    static func array(_ elements: [PostgresValue]) -> PostgresValue {
        // Built as bytes: appending to a String scalar by scalar was a twentieth of the server's CPU in a
        // profile of installation upserts. A quote or backslash is never part of a multi-byte UTF-8
        // sequence, so escaping byte by byte is exact.
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(2 + elements.count * 24)
        for (index, element) in elements.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            switch element {
            case .null:
                literal += "NULL".utf8
            case .text(let value):
                appendQuoted(value.utf8, to: &literal)
            case .integer(let value):
                appendQuoted(String(value).utf8, to: &literal)
            case .boolean(let value):
                appendQuoted((value ? "t" : "f").utf8, to: &literal)
            case .bytes(let value):
                // `\x` and the hex digits: the backslash escaped inside the quotes.
                literal += #""\\x"#.utf8
                for byte in value {
                    literal.append(hexDigits[Int(byte >> 4)])
                    literal.append(hexDigits[Int(byte & 0x0f)])
                }
                literal.append(UInt8(ascii: "\""))
            }
        }
        literal.append(UInt8(ascii: "}"))
        return .text(String(decoding: literal, as: UTF8.self))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendQuoted(_ text: some Sequence<UInt8>, to literal: inout [UInt8]) {
        literal.append(UInt8(ascii: "\""))
        for byte in text {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
            literal.append(byte)
        }
        literal.append(UInt8(ascii: "\""))
    }
}
