/// The value of one custom attribute of an installation or a user: a string, a number, a boolean, a date or a list
/// of strings.
///
/// On the wire a date is an object, so it is never confused with a string that looks like one:
///
/// ```json
/// {"first_name": "Aiko", "orders": 3, "vip": true, "signed_up_at": {"date": "2026-04-01T09:30:00Z"},
///  "interests": ["shoes", "running"]}
/// ```
public enum AttributeValue: Sendable, Hashable {
    case string(String)
    /// A finite double; integers are exact up to 2^53.
    case number(Double)
    case bool(Bool)
    /// Unix milliseconds.
    case date(Int64)
    /// Strings in the order given, for `contains` in audiences (`attributes.interests contains shoes`).
    case list([String])

    /// The attribute as it is written in JSON: the value itself, or `{"date": "<RFC 3339>"}` for a date.
    public var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number):
            if number == number.rounded(), abs(number) < 9.0e15 { .integer(Int64(number)) } else { .double(number) }
        case .bool(let flag): .bool(flag)
        case .date(let milliseconds): .object(["date": .string(RFC3339.format(milliseconds: milliseconds))])
        case .list(let items): .array(items.map(JSONValue.string))
        }
    }

    /// The type's name, as error messages and documentation say it.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .date: "date"
        case .list: "list"
        }
    }

    /// How a template shows the value: strings as they are, integral numbers without a fraction (`3`, not
    /// `3.0`), other numbers in their shortest form, booleans as `true`/`false`, dates as RFC 3339 in UTC, lists
    /// as their items joined by ", ".
    public var text: String {
        switch self {
        case .string(let text): text
        case .number(let number):
            if number == number.rounded(), abs(number) < 9.0e15 { String(Int64(number)) } else { "\(number)" }
        case .bool(let flag): flag ? "true" : "false"
        case .date(let milliseconds): RFC3339.format(milliseconds: milliseconds)
        case .list(let items): items.joined(separator: ", ")
        }
    }

    /// Reads the JSON of one attribute named `key` and checks it against `limits`.
    /// - Throws: ``AttributeError`` naming the key and the limit.
    public static func parse(_ value: JSONValue, key: String, limits: AttributeLimits = AttributeLimits())
        throws(AttributeError) -> AttributeValue
    {
        let parsed: AttributeValue
        switch value {
        case .string(let text): parsed = .string(text)
        case .integer(let integer): parsed = .number(Double(integer))
        case .double(let double): parsed = .number(double)
        case .bool(let flag): parsed = .bool(flag)
        case .object(let object):
            guard object.count == 1, let text = object["date"]?.stringValue else {
                throw AttributeError(
                    key: key,
                    message:
                        #"attribute '\#(key)' must be a string, number, boolean, list of strings or {"date": "<RFC 3339 date-time>"}"#
                )
            }
            guard let milliseconds = RFC3339.parse(text) else {
                throw AttributeError(
                    key: key,
                    message:
                        "attribute '\(key)' must be an RFC 3339 date-time such as 2026-12-24T09:00:00Z; '\(text.prefix(40))' is not one"
                )
            }
            parsed = .date(milliseconds)
        case .array(let array):
            var items: [String] = []
            for item in array {
                guard let text = item.stringValue else {
                    throw AttributeError(key: key, message: "attribute '\(key)' is a list, whose items must be strings")
                }
                items.append(text)
            }
            parsed = .list(items)
        default:
            throw AttributeError(
                key: key,
                message:
                    #"attribute '\#(key)' must be a string, number, boolean, list of strings or {"date": "<RFC 3339 date-time>"}"#
            )
        }
        try limits.check(key: key, value: parsed)
        return parsed
    }

    /// Reads a whole attributes object as stored (no limits applied: they were checked when it was written);
    /// members that cannot be read are left out.
    public static func decodeStored(_ object: [String: JSONValue]) -> [String: AttributeValue] {
        var attributes: [String: AttributeValue] = [:]
        for (key, value) in object {
            if let parsed = try? parse(value, key: key, limits: .unlimited) { attributes[key] = parsed }
        }
        return attributes
    }

    /// `attributes` as one JSON object.
    public static func json(_ attributes: [String: AttributeValue]) -> JSONValue {
        .object(attributes.mapValues(\.json))
    }
}
