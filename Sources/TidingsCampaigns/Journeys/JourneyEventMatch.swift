import TidingsModel

/// Which events a trigger, an exit, a wait or a branch is about: a type, and optionally the `value` and the
/// attributes the event must carry, compared for equality.
public struct JourneyEventMatch: Sendable, Hashable {
    public var type: String
    public var value: String?
    public var attributes: [String: JSONValue]

    public init(type: String, value: String? = nil, attributes: [String: JSONValue] = [:]) {
        self.type = type
        self.value = value
        self.attributes = attributes
    }

    public func matches(_ event: TidingsEvent) -> Bool {
        matches(type: event.type.rawValue, value: event.value, attributes: event.attributes)
    }

    public func matches(type: String, value: String?, attributes: [String: JSONValue]?) -> Bool {
        guard type == self.type else { return false }
        if let expected = self.value, expected != value { return false }
        for (key, expected) in self.attributes where attributes?[key] != expected { return false }
        return true
    }

    /// As the definition gives it: `{"event": TYPE, "where": {"value": ..., "attributes": {...}}}`.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["event": .string(type)]
        var condition: [String: JSONValue] = [:]
        if let value { condition["value"] = .string(value) }
        if !attributes.isEmpty { condition["attributes"] = .object(attributes) }
        if !condition.isEmpty { object["where"] = .object(condition) }
        return .object(object)
    }
}
