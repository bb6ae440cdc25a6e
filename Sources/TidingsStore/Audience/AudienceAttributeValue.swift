import TidingsModel

/// A value compared with a custom attribute; its case is the attribute type it compares with.
public enum AudienceAttributeValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case boolean(Bool)
    /// A date relative to when the audience is resolved: this many seconds before it.
    case secondsAgo(Int64)
    /// An absolute date, unix milliseconds.
    case date(Int64)

    /// As written in an expression, so that it parses back to the same value.
    public var description: String {
        switch self {
        case .string(let text):
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .number(let number):
            number == number.rounded() && abs(number) < 9.0e15 ? String(Int64(number)) : "\(number)"
        case .boolean(let flag): flag ? "true" : "false"
        case .secondsAgo(let seconds): "\(seconds)s ago"
        case .date(let milliseconds): "date \"\(RFC3339.format(milliseconds: milliseconds))\""
        }
    }

    var isString: Bool {
        if case .string = self { true } else { false }
    }
}
