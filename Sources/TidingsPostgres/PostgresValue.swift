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
        var literal = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { literal += "," }
            let text: String
            switch element {
            case .null:
                literal += "NULL"
                continue
            case .text(let value): text = value
            case .integer(let value): text = String(value)
            case .boolean(let value): text = value ? "t" : "f"
            case .bytes(let value):
                text = "\\x" + value.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
            }
            literal += "\""
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return .text(literal + "}")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
