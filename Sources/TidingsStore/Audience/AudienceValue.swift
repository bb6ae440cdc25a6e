import Foundation
import TidingsModel

/// A validated value in an audience condition, already in the form the store compares.
public enum AudienceValue: Sendable, Hashable, CustomStringConvertible {
    /// Text as written (lower- or upper-cased for fields compared without case).
    case text(String)
    /// A version as written and its ``VersionKey``.
    case version(String, key: String)
    case boolean(Bool)
    /// A time relative to when the audience is resolved: this many seconds before it.
    case secondsAgo(Int64)
    /// An absolute time, unix milliseconds.
    case time(Int64)

    public var description: String {
        switch self {
        case .text(let text):
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .version(let text, _): "\"\(text)\""
        case .boolean(let value): value ? "true" : "false"
        case .secondsAgo(let seconds): "\(seconds)s ago"
        case .time(let milliseconds): "\"\(RFC3339.format(milliseconds: milliseconds))\""
        }
    }

    /// The text of a text value.
    var text: String? {
        if case .text(let text) = self { text } else { nil }
    }
}
