import TidingsModel

/// One way out of a split: a weight, and the step it leads to or the control group (which exits).
public struct JourneySplitPath: Sendable, Hashable {
    public var weight: Int
    /// Nil for the control group; otherwise the step, or nil `next` meaning the step after the split.
    public var next: String?
    public var isControl: Bool

    public init(weight: Int, next: String?, isControl: Bool) {
        self.weight = weight
        self.next = next
        self.isControl = isControl
    }

    var json: JSONValue {
        var object: [String: JSONValue] = ["weight": .integer(Int64(weight))]
        if isControl { object["control"] = .bool(true) }
        if let next { object["next"] = .string(next) }
        return .object(object)
    }
}
