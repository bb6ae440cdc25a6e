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
}
