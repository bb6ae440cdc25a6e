import Foundation

/// The built-in lint checks: small pure functions of ``PayloadLintInput``, wired to codes in
/// ``PayloadLintRule/catalog``. Grouped by concern in `PayloadLintChecks+*.swift`.
enum PayloadLintChecks {
    typealias Finding = PayloadLintRule.Finding

    /// A JSON value described for a message: `string "3"`, `number 1.5`, `an array`...
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let bool): return "\(bool)"
        case .integer(let integer): return "number \(integer)"
        case .double(let double): return "number \(double)"
        case .string(let string): return "string \"\(string.count > 40 ? String(string.prefix(40)) + "…" : string)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The number in a JSON value, integer or not.
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        default: return nil
        }
    }

    /// Whether the alert has text to show.
    static func hasAlertText(_ payload: PushPayload) -> Bool {
        payload.alert.map { !$0.isEmpty } ?? false
    }

    /// A list for a message, shortened after `limit` items.
    static func list(_ items: [String], limit: Int = 8) -> String {
        let shown = items.prefix(limit).joined(separator: ", ")
        return items.count > limit ? "\(shown) and \(items.count - limit) more" : shown
    }

    /// A date for a message, in ISO 8601 UTC.
    static func format(_ date: Date) -> String {
        // The value-type style is far cheaper than building an ISO8601DateFormatter per message.
        Date.ISO8601FormatStyle().format(date)
    }
}
