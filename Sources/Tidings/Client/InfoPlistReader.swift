import Foundation

/// Typed reads of an Info.plist dictionary, each failing with ``ConfigurationError`` naming the key.
struct InfoPlistReader {
    var values: [String: Any]

    func invalid(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(code: .invalidValue, key: key, message: message)
    }

    func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = values[key] else { return nil }
        guard let text = value as? String else { throw invalid(key, "expected a string, got \(type(of: value))") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = values[key] else { return nil }
        if let flag = value as? Bool { return flag }
        if let text = value as? String {
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: break
            }
        }
        throw invalid(key, "expected a boolean (or YES/NO), got \(String(describing: value))")
    }

    func integer(_ key: String) throws(ConfigurationError) -> Int? {
        guard let value = values[key] else { return nil }
        if let number = value as? Int { return number }
        if let text = value as? String, let number = Int(text.trimmingCharacters(in: .whitespaces)) { return number }
        throw invalid(key, "expected an integer, got \(String(describing: value))")
    }

    /// An array of strings; a single string is read as a comma-separated list.
    func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let value = values[key] else { return nil }
        let items: [String]
        if let array = value as? [String] {
            items = array
        } else if let array = value as? [Any] {
            throw invalid(key, "expected an array of strings, got \(array.count) items of other types")
        } else if let text = value as? String {
            items = text.split(separator: ",").map(String.init)
        } else {
            throw invalid(key, "expected an array of strings, got \(type(of: value))")
        }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
