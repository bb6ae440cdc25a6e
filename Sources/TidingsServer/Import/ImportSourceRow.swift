import Foundation
import TidingsModel

/// One row of an import file as its columns: a CSV record's cells by header (text, an empty cell absent), or
/// an NDJSON line's members.
public struct ImportSourceRow: Sendable {
    public var values: [String: JSONValue]

    public init(_ values: [String: JSONValue]) { self.values = values }

    /// `column` as text (a number or boolean of NDJSON as written); nil when absent, null or empty.
    func text(_ column: String) -> String? {
        switch values[column] {
        case .string(let text)?: text.isEmpty ? nil : text
        case .integer(let number)?: String(number)
        case .double(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }

    /// `column` as a yes or no: JSON booleans, or `true`/`false`, `t`/`f`, `1`/`0`, `yes`/`no` in any case.
    func flag(_ column: String) throws(ImportRowError) -> Bool? {
        if case .bool(let flag)? = values[column] { return flag }
        guard let text = text(column) else { return nil }
        switch text.lowercased() {
        case "true", "t", "1", "yes", "y": return true
        case "false", "f", "0", "no", "n": return false
        default:
            throw ImportRowError(
                column: column, rule: "invalid_boolean",
                message: "\(column) must be true or false, not '\(text.prefix(40))'")
        }
    }

    /// `column` as a JSON object: an NDJSON object, or a CSV cell holding one.
    func object(_ column: String) throws(ImportRowError) -> [String: JSONValue]? {
        switch values[column] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        case .string(let text)? where text.isEmpty: return nil
        case .string(let text)?:
            if let object = try? JSONValue.parse(text).objectValue { return object }
        default: break
        }
        throw ImportRowError(column: column, rule: "invalid_object", message: "\(column) must be a JSON object")
    }

    /// `column` as an array: an NDJSON array, or a CSV cell of values separated by `separator`.
    func list(_ column: String, separator: Character = ";") throws(ImportRowError) -> [JSONValue]? {
        switch values[column] {
        case nil, .null?: return nil
        case .array(let array)?: return array
        case .string(let text)?:
            let items = text.split(separator: separator).map { $0.trimmingCharacters(in: .whitespaces) }
            return items.filter { !$0.isEmpty }.map(JSONValue.string)
        default:
            throw ImportRowError(column: column, rule: "invalid_list", message: "\(column) must be a list")
        }
    }

    /// The text of `column`, which the row must have.
    func required(_ column: String) throws(ImportRowError) -> String {
        guard let text = text(column) else {
            throw ImportRowError(column: column, rule: "required", message: "\(column) is required and is empty")
        }
        return text
    }
}
