import Foundation
import TidingsCrypto
import TidingsModel
import TidingsStore

/// Checks a destination's settings as the administration API receives them, and shows them back without
/// their secrets.
///
/// - Treasure Data: `region` (`us01`, `eu01`, `ap01` Tokyo, `ap02` Korea, `ap03`) or `endpoint`, `database`,
///   `table` (letters, digits and `_`, as TD allows), `write_key`.
/// - Webhook: `url` (`https://`; `http://` only to a loopback host, for development and tests), and an
///   optional `secret` of at least 24 characters (one is generated otherwise).
/// - File: `directory`, a relative path under the server's forwarding directory; `max_file_bytes`
///   (at least 1 KiB) and `max_file_seconds` (at least 1).
public enum ForwarderSettings {
    /// Settings that are secrets: stored, used, never shown back.
    public static let secretKeys: Set<String> = ["write_key", "secret"]
    /// The generated signing secret's prefix, so one found in a log or a repository is recognisable.
    public static let secretPrefix = "whsec_"

    /// The settings to store for `kind`, checked, with a generated webhook secret when none was given.
    /// - Throws: ``ForwarderConfigurationError`` naming the field.
    public static func validated(kind: ForwarderRecord.Kind, _ input: [String: JSONValue])
        throws(ForwarderConfigurationError) -> [String: JSONValue]
    {
        switch kind {
        case .treasureData:
            try allowOnly(input, ["region", "endpoint", "database", "table", "write_key"])
            var settings: [String: JSONValue] = [:]
            switch (input["region"]?.stringValue, input["endpoint"]?.stringValue) {
            case (let region?, nil):
                guard TreasureDataDestination.Region(rawValue: region) != nil else {
                    throw ForwarderConfigurationError(
                        "region must be one of \(TreasureDataDestination.Region.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                settings["region"] = .string(region)
            case (nil, let endpoint?):
                try checkURL(endpoint, field: "endpoint")
                settings["endpoint"] = .string(endpoint)
            default:
                throw ForwarderConfigurationError("give either region or endpoint (a string), not both")
            }
            for field in ["database", "table"] {
                let name = try requiredString(input, field)
                guard name.count <= 128, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                else {
                    throw ForwarderConfigurationError(
                        "\(field) may hold only letters, digits and _ (at most 128), as Treasure Data allows")
                }
                settings[field] = .string(name)
            }
            let writeKey = try requiredString(input, "write_key")
            guard !writeKey.containsControlCharacters else {
                throw ForwarderConfigurationError(
                    "write_key must not contain control characters (it is sent in the Authorization header)")
            }
            settings["write_key"] = .string(writeKey)
            return settings
        case .webhook:
            try allowOnly(input, ["url", "secret"])
            let url = try requiredString(input, "url")
            try checkURL(url, field: "url")
            var secret = secretPrefix + Base64URL.encode(SecureRandom.bytes(32))
            if input["secret"] != nil {
                secret = try requiredString(input, "secret")
                guard secret.utf8.count >= 24 else {
                    throw ForwarderConfigurationError("secret must be at least 24 characters")
                }
            }
            return ["url": .string(url), "secret": .string(secret)]
        case .file:
            try allowOnly(input, ["directory", "max_file_bytes", "max_file_seconds"])
            let directory = try requiredString(input, "directory")
            let components = directory.split(separator: "/")
            guard !directory.hasPrefix("/"), !components.isEmpty,
                !components.contains(where: { $0 == ".." || $0 == "." })
            else {
                throw ForwarderConfigurationError(
                    "directory must be a relative path without . or .. (it is kept under the server's forwarding directory)"
                )
            }
            var settings: [String: JSONValue] = ["directory": .string(directory)]
            settings["max_file_bytes"] = .integer(
                try integer(input, "max_file_bytes", default: 64 * 1024 * 1024, minimum: 1024))
            settings["max_file_seconds"] = .integer(try integer(input, "max_file_seconds", default: 3600, minimum: 1))
            return settings
        }
    }

    /// The settings as the administration API shows them: secrets replaced by whether they are set.
    public static func redacted(_ settings: [String: JSONValue]) -> [String: JSONValue] {
        var shown = settings
        for key in secretKeys where shown[key] != nil {
            shown[key] = nil
            shown["\(key)_set"] = true
        }
        return shown
    }

    /// The filter from `{"event_types": [...], "campaigns": [...], "drop_fields": [...]}`, every member optional.
    public static func filter(_ input: JSONValue?) throws(ForwarderConfigurationError) -> ForwarderRecord.Filter {
        guard let input, !input.isNull else { return ForwarderRecord.Filter() }
        guard let object = input.objectValue else {
            throw ForwarderConfigurationError("filter must be an object")
        }
        try allowOnly(object, ["event_types", "campaigns", "drop_fields"])
        func strings(_ field: String) throws(ForwarderConfigurationError) -> [String] {
            guard let value = object[field] else { return [] }
            guard let array = value.arrayValue, array.count <= 100 else {
                throw ForwarderConfigurationError("filter.\(field) must be an array of at most 100 strings")
            }
            var strings: [String] = []
            for element in array {
                guard let string = element.stringValue, !string.isEmpty, string.utf8.count <= 128 else {
                    throw ForwarderConfigurationError(
                        "filter.\(field) must hold non-empty strings of at most 128 bytes")
                }
                strings.append(string)
            }
            return strings
        }
        let dropped = try strings("drop_fields")
        for field in dropped where ["event_id", "type"].contains(field) {
            throw ForwarderConfigurationError("filter.drop_fields cannot drop \(field): receivers need it")
        }
        return ForwarderRecord.Filter(
            eventTypes: try strings("event_types"), campaigns: try strings("campaigns"), droppedFields: dropped)
    }

    /// `https://`, or `http://` to a loopback host (development and tests).
    static func checkURL(_ text: String, field: String) throws(ForwarderConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw ForwarderConfigurationError("\(field) must be an absolute https:// URL")
        }
        if scheme == "https" { return }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "http", loopback else {
            throw ForwarderConfigurationError(
                "\(field) must use https:// (http:// is allowed only to a loopback host, for development)")
        }
    }

    private static func allowOnly(_ input: [String: JSONValue], _ fields: Set<String>)
        throws(ForwarderConfigurationError)
    {
        for key in input.keys.sorted() where !fields.contains(key) {
            throw ForwarderConfigurationError(
                "\(key) is not a setting here; expected \(fields.sorted().joined(separator: ", "))")
        }
    }

    private static func requiredString(_ input: [String: JSONValue], _ field: String)
        throws(ForwarderConfigurationError) -> String
    {
        guard let value = input[field]?.stringValue, !value.isEmpty, value.utf8.count <= 2048 else {
            throw ForwarderConfigurationError("\(field) must be a non-empty string of at most 2048 bytes")
        }
        return value
    }

    private static func integer(_ input: [String: JSONValue], _ field: String, default value: Int64, minimum: Int64)
        throws(ForwarderConfigurationError) -> Int64
    {
        guard let member = input[field] else { return value }
        guard let number = member.integerValue, number >= minimum else {
            throw ForwarderConfigurationError("\(field) must be an integer of at least \(minimum)")
        }
        return number
    }
}
