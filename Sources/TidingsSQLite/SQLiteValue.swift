/// A value bound to or read from SQLite.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

extension SQLiteValue {
    /// `.text` or `.null`.
    public init(_ text: String?) { self = text.map(SQLiteValue.text) ?? .null }
    /// `.integer` or `.null`.
    public init(_ integer: Int64?) { self = integer.map(SQLiteValue.integer) ?? .null }
    /// `.integer(0|1)` or `.null`.
    public init(_ bool: Bool?) { self = bool.map { .integer($0 ? 1 : 0) } ?? .null }
}
