import Foundation

/// Reads JSON values the way push vendors actually send them, not the way their docs say.
///
/// Vendors and their relays disagree on types: booleans arrive as `1`, `"1"`, `true` or `"true"`;
/// numbers as strings (FCM data payloads carry only strings); nested objects as a string holding JSON;
/// timestamps in seconds or milliseconds. Each reader returns nil when the value cannot be read, so the
/// caller keeps the original in ``PushPayload/unrecognized`` instead of guessing.
public enum LenientValue {
    /// Timestamps above this are milliseconds since 1970, below it seconds (10^12 s is 33658 AD;
    /// 10^12 ms is September 2001).
    public static let millisecondThreshold: Double = 1_000_000_000_000

    /// `true`/`false`, `1`/`0` (integer, fractional or string), `"true"`/`"false"`, `"yes"`/`"no"`.
    public static func bool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let bool): return bool
        case .integer(let number) where number == 0 || number == 1: return number == 1
        case .double(let number) where number == 0 || number == 1: return number == 1
        case .string(let text):
            switch trimmed(text).lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// A whole number, from an integer, an integral fractional number or a numeric string.
    public static func int(_ value: JSONValue) -> Int? {
        switch value {
        case .integer(let number): return Int(exactly: number)
        case .double(let number): return number.isFinite ? Int(exactly: number) : nil
        case .string(let text):
            let digits = trimmed(text)
            if let number = Int(digits) { return number }
            if let number = Double(digits), number.isFinite { return Int(exactly: number) }
            return nil
        default: return nil
        }
    }

    /// A finite number, from an integer, a fractional number or a numeric string.
    public static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): return Double(number)
        case .double(let number): return number.isFinite ? number : nil
        case .string(let text):
            guard let number = Double(trimmed(text)), number.isFinite else { return nil }
            return number
        default: return nil
        }
    }

    /// Text, or a number written as text (identifiers such as NHN Cloud's 64-bit message id arrive as numbers).
    public static func string(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number):
            guard number.isFinite else { return nil }
            if let whole = Int64(exactly: number) { return String(whole) }
            return String(number)
        default: return nil
        }
    }

    /// Non-empty text or number-as-text; empty strings count as absent.
    public static func nonEmptyString(_ value: JSONValue) -> String? {
        guard let text = string(value), !text.isEmpty else { return nil }
        return text
    }

    /// An object, or a string holding a JSON object (flat data payloads nest that way).
    public static func object(_ value: JSONValue) -> [String: JSONValue]? {
        switch value {
        case .object(let object): return object
        case .string(let text): return embeddedJSON(text)?.objectValue
        default: return nil
        }
    }

    /// An array, or a string holding a JSON array.
    public static func array(_ value: JSONValue) -> [JSONValue]? {
        switch value {
        case .array(let array): return array
        case .string(let text): return embeddedJSON(text)?.arrayValue
        default: return nil
        }
    }

    /// The JSON object or array a string holds, when it starts like one and parses; nil for anything else.
    public static func embeddedJSON(_ text: String) -> JSONValue? {
        guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return nil }
        guard let value = try? JSONValue.parse(text) else { return nil }
        switch value {
        case .object, .array: return value
        default: return nil
        }
    }

    /// A string holding a JSON object or array is replaced by the parsed value; anything else is unchanged.
    public static func expandingEmbeddedJSON(_ value: JSONValue) -> JSONValue {
        if case .string(let text) = value, let parsed = embeddedJSON(text) { return parsed }
        return value
    }

    /// A point in time: a number (or numeric string) of seconds or milliseconds since 1970 — values above
    /// ``millisecondThreshold`` are milliseconds — or an ISO-8601 date-time with or without fractional seconds.
    public static func timestamp(_ value: JSONValue) -> Date? {
        let number: Double
        if case .integer(let integer) = value {
            number = Double(integer)
        } else if let double = double(value) {
            number = double
        } else {
            guard case .string(let text) = value else { return nil }
            return iso8601(text)
        }
        let seconds = abs(number) > millisecondThreshold ? number / 1000 : number
        // Outside 1970...9999 a number is not a timestamp of a push; it stays where it was, unread.
        guard seconds.isFinite, seconds >= 0, seconds <= latestTimestamp else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The last second of the year 9999, the latest timestamp read.
    public static let latestTimestamp: Double = 253_402_300_799

    /// An ISO-8601 date-time (`2024-05-01T12:00:00+09:00`, `2024-05-01T03:00:00.123Z`).
    public static func iso8601(_ text: String) -> Date? {
        let text = trimmed(text)
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `text` without surrounding spaces; skips Foundation's trimming (slow on Linux) when there are none.
    static func trimmed(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last,
            first == UInt8(ascii: " ") || last == UInt8(ascii: " ") || first == UInt8(ascii: "\t")
                || last == UInt8(ascii: "\t")
        else { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
