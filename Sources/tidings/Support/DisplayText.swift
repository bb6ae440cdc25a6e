import Foundation
import TidingsModel

/// How API values look in tables for people: JSON members as plain text, timestamps as ISO 8601.
enum DisplayText {
    /// A string as itself, numbers in decimal, booleans as yes/no, null or absent as `-`, anything else as JSON.
    static func value(_ value: JSONValue?) -> String {
        switch value {
        case .string(let string)?: string
        case .integer(let number)?: String(number)
        case .double(let number)?: String(number)
        case .bool(let flag)?: flag ? "yes" : "no"
        case .null?, nil: "-"
        case let other?: (try? other.serializedString(sortedKeys: true)) ?? "-"
        }
    }

    /// A member holding milliseconds since 1970, as ``timestamp(_:)``; `-` when it holds anything else.
    static func time(_ value: JSONValue?) -> String {
        guard case .integer(let milliseconds)? = value else { return "-" }
        return timestamp(milliseconds)
    }

    /// Milliseconds since 1970 as an ISO 8601 date-time with milliseconds, in UTC.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
