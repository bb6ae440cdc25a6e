import TidingsModel

/// One `| filter` of a template tag, applied left to right to the tag's value.
public enum TemplateFilter: Sendable, Hashable {
    /// `default: "there"`: the text used when the value is missing or an empty string.
    case `default`(String)
    /// `upcase`, `downcase`, `capitalize` (the first letter upper-case, the rest as they are).
    case upcase
    case downcase
    case capitalize
    /// `date: "%Y-%m-%d"`: a date in UTC with `%Y %m %d %H %M %S %%`; other values pass unchanged.
    case date(String)

    /// The filters by name, as documented.
    static let names = ["default", "upcase", "downcase", "capitalize", "date"]

    /// The filter `name` with `argument`.
    /// - Throws: `invalid_filter` at `position` for an unknown name or a missing or unexpected argument.
    static func make(_ name: String, argument: String?, position: Int) throws(TemplateError) -> TemplateFilter {
        func noArgument(_ filter: TemplateFilter) throws(TemplateError) -> TemplateFilter {
            guard argument == nil else {
                throw TemplateError(code: .invalidFilter, position: position, message: "\(name) takes no argument")
            }
            return filter
        }
        func needed() throws(TemplateError) -> String {
            guard let argument else {
                throw TemplateError(
                    code: .invalidFilter, position: position,
                    message: #"\#(name) needs a quoted argument, as in \#(name): "...""#)
            }
            return argument
        }
        switch name {
        case "default": return .default(try needed())
        case "upcase": return try noArgument(.upcase)
        case "downcase": return try noArgument(.downcase)
        case "capitalize": return try noArgument(.capitalize)
        case "date":
            let format = try needed()
            var index = format.startIndex
            while let percent = format[index...].firstIndex(of: "%") {
                let next = format.index(after: percent)
                guard next < format.endIndex, "YmdHMS%".contains(format[next]) else {
                    throw TemplateError(
                        code: .invalidFilter, position: position,
                        message: "date formats know %Y %m %d %H %M %S and %%; '\(format)' has another")
                }
                index = format.index(after: next)
            }
            return .date(format)
        default:
            throw TemplateError(
                code: .invalidFilter, position: position,
                message: "unknown filter '\(name)'; the filters are \(names.joined(separator: ", "))")
        }
    }

    /// The filter applied to `value` (nil: missing).
    func apply(_ value: AttributeValue?) -> AttributeValue? {
        switch self {
        case .default(let fallback):
            guard let value, value != .string("") else { return .string(fallback) }
            return value
        case .upcase: return value.map { .string($0.text.uppercased()) }
        case .downcase: return value.map { .string($0.text.lowercased()) }
        case .capitalize: return value.map { .string($0.text.prefix(1).uppercased() + $0.text.dropFirst()) }
        case .date(let format):
            guard case .date(let milliseconds)? = value else { return value }
            return .string(Self.format(milliseconds, format))
        }
    }

    private static func format(_ milliseconds: Int64, _ format: String) -> String {
        let parts = RFC3339.components(milliseconds: milliseconds)
        var result = ""
        var percent = false
        for character in format {
            guard percent else {
                if character == "%" { percent = true } else { result.append(character) }
                continue
            }
            percent = false
            switch character {
            case "Y": result += RFC3339.pad(parts.year, 4)
            case "m": result += RFC3339.pad(parts.month, 2)
            case "d": result += RFC3339.pad(parts.day, 2)
            case "H": result += RFC3339.pad(parts.hour, 2)
            case "M": result += RFC3339.pad(parts.minute, 2)
            case "S": result += RFC3339.pad(parts.second, 2)
            default: result.append(character)
            }
        }
        return result
    }
}
