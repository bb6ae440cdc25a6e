/// Checks of the raw `aps` object: keys Apple does not document, and documented keys of the wrong type.
extension PayloadLintChecks {
    /// The `aps` keys Apple documents, shared with the decoders; Safari's `url-args` is added because web push
    /// payloads pass through the same tools.
    static let documentedApsKeys = PushPayload.documentedAPSKeys.union(["url-args"])

    /// The `aps.alert` keys Apple documents, plus the older `action`, `action-loc-key` and `summary-arg*` that
    /// iOS still reads.
    static let documentedAlertKeys = PushPayload.documentedAlertKeys.union([
        "action", "action-loc-key", "summary-arg", "summary-arg-count",
    ])

    /// The JSON type a documented key must have.
    enum Expected {
        case string, integer, nonNegativeInteger, number, object, stringArray, stringOrObject
        /// `content-available`, `mutable-content`: a number; booleans are `aps_flag_not_one`'s business.
        case flag

        func accepts(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.integer, .integer), (.object, .object): return true
            case (.nonNegativeInteger, .integer(let integer)): return integer >= 0
            case (.number, .integer), (.number, .double): return true
            case (.stringArray, .array(let elements)): return elements.allSatisfy { $0.stringValue != nil }
            case (.stringOrObject, .string), (.stringOrObject, .object): return true
            case (.flag, .integer), (.flag, .bool): return true
            default: return false
            }
        }

        var name: String {
            switch self {
            case .string: return "a string"
            case .integer: return "an integer"
            case .nonNegativeInteger: return "an integer ≥ 0"
            case .number: return "a number"
            case .object: return "an object"
            case .stringArray: return "an array of strings"
            case .stringOrObject: return "a string or an object"
            case .flag: return "the number 1"
            }
        }
    }

    static let apsTypes: [(key: String, expected: Expected)] = [
        ("alert", .stringOrObject), ("badge", .nonNegativeInteger), ("sound", .stringOrObject),
        ("thread-id", .string), ("category", .string), ("content-available", .flag),
        ("mutable-content", .flag), ("target-content-id", .string), ("interruption-level", .string),
        ("relevance-score", .number), ("filter-criteria", .string), ("stale-date", .integer),
        ("timestamp", .integer), ("dismissal-date", .integer), ("content-state", .object), ("event", .string),
        ("attributes-type", .string), ("attributes", .object), ("input-push-channel", .string),
        ("url-args", .stringArray),
    ]

    static let alertTypes: [(key: String, expected: Expected)] = [
        ("title", .string), ("subtitle", .string), ("body", .string), ("launch-image", .string),
        ("title-loc-key", .string), ("title-loc-args", .stringArray), ("subtitle-loc-key", .string),
        ("subtitle-loc-args", .stringArray), ("loc-key", .string), ("loc-args", .stringArray),
    ]

    static let soundTypes: [(key: String, expected: Expected)] = [
        ("name", .string), ("critical", .integer), ("volume", .number),
    ]

    /// `aps` must be an object; anything else means iOS ignores the whole push's system part.
    static func apsNotObject(_ input: PayloadLintInput) -> [Finding] {
        guard let aps = input.json["aps"], aps.objectValue == nil else { return [] }
        return [Finding("aps must be an object, found \(describe(aps)); iOS ignores it", path: "aps")]
    }

    /// No `aps` at all: nothing is shown and the app is not woken.
    static func noAps(_ input: PayloadLintInput) -> [Finding] {
        guard input.json["aps"] == nil else { return [] }
        return [
            Finding(
                "no aps object: iOS shows nothing and does not wake the app in the background "
                    + "(fine only for data handed over by the FCM SDK in the foreground)")
        ]
    }

    static func unknownApsKeys(_ input: PayloadLintInput) -> [Finding] {
        guard let aps = input.aps else { return [] }
        let unknown = aps.keys.filter { !documentedApsKeys.contains($0) }.sorted()
        guard !unknown.isEmpty else { return [] }
        return [
            Finding(
                "aps has keys Apple does not document: \(list(unknown)); iOS ignores them — put custom data at "
                    + "the top level of the payload, outside aps", path: "aps")
        ]
    }

    static func unknownAlertKeys(_ input: PayloadLintInput) -> [Finding] {
        guard let alert = input.aps?["alert"]?.objectValue else { return [] }
        let unknown = alert.keys.filter { !documentedAlertKeys.contains($0) }.sorted()
        guard !unknown.isEmpty else { return [] }
        return [
            Finding(
                "aps.alert has keys Apple does not document: \(list(unknown)); iOS ignores them", path: "aps.alert")
        ]
    }

    /// Documented keys whose JSON type iOS does not read (`"badge": "3"`, `"sound": true`...).
    static func apsWrongType(_ input: PayloadLintInput) -> [Finding] {
        guard let aps = input.aps else { return [] }
        var findings = mistyped(aps, apsTypes, prefix: "aps")
        if let alert = aps["alert"]?.objectValue {
            findings += mistyped(alert, alertTypes, prefix: "aps.alert")
        }
        if let sound = aps["sound"]?.objectValue {
            findings += mistyped(sound, soundTypes, prefix: "aps.sound")
        }
        return findings
    }

    private static func mistyped(
        _ object: [String: JSONValue], _ types: [(key: String, expected: Expected)], prefix: String
    ) -> [Finding] {
        types.compactMap { key, expected in
            guard let value = object[key], !expected.accepts(value) else { return nil }
            return Finding(
                "\(prefix).\(key) must be \(expected.name), found \(describe(value)); iOS may not read it — "
                    + "send the documented type",
                path: "\(prefix).\(key)")
        }
    }

    /// `content-available` and `mutable-content` are flags Apple documents as the number 1.
    static func apsFlagNotOne(_ input: PayloadLintInput) -> [Finding] {
        guard let aps = input.aps else { return [] }
        return ["content-available", "mutable-content"].compactMap { key in
            let fix: String
            switch aps[key] {
            case .integer(0)?: fix = "0 is the same as leaving it out; omit the key"
            case .integer(let value)? where value != 1: fix = "set it to 1"
            case .bool(let value)?: fix = value ? "send the number 1, not true" : "omit the key instead of false"
            default: return nil
            }
            return Finding(
                "aps.\(key) is \(aps[key].map(describe) ?? ""); Apple documents only the value 1 — \(fix)",
                path: "aps.\(key)")
        }
    }

    /// A sound dictionary (critical alerts) must name the sound; without a name nothing plays.
    static func soundWithoutName(_ input: PayloadLintInput) -> [Finding] {
        guard let sound = input.aps?["sound"]?.objectValue, (sound["name"]?.stringValue ?? "").isEmpty else {
            return []
        }
        return [
            Finding(
                "aps.sound is an object without a name; no sound plays — add \"name\": \"default\" or a file name",
                path: "aps.sound")
        ]
    }

    /// An empty `thread-id` or `category` groups nothing and matches no registered category.
    static func emptyGroupingKey(_ input: PayloadLintInput) -> [Finding] {
        let aps = input.aps ?? [:]
        var findings: [Finding] = []
        if input.payload.threadID == "" || aps["thread-id"] == "" {
            findings.append(
                Finding("aps.thread-id is an empty string; it groups nothing — omit it", path: "aps.thread-id"))
        }
        if input.payload.category == "" || aps["category"] == "" {
            findings.append(
                Finding(
                    "aps.category is an empty string; it matches no registered category, so no buttons and no "
                        + "dismiss tracking — omit it or name a category", path: "aps.category"))
        }
        return findings
    }
}
