import TidingsModel

/// A fork on who the person is or what they did since entering.
public struct JourneyBranch: Sendable, Hashable {
    public enum Condition: Sendable, Hashable {
        /// An audience expression: true when any of the person's installations matches it.
        case audience(String)
        /// The person emitted a matching event since entering the journey.
        case event(JourneyEventMatch)
    }

    public var condition: Condition
    public var then: String?
    public var otherwise: String?

    public init(condition: Condition, then: String?, otherwise: String?) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
    }

    var fields: [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        switch condition {
        case .audience(let expression): object["audience"] = .string(expression)
        case .event(let match):
            object["event"] = .string(match.type)
            if let condition = match.json.objectValue?["where"] { object["where"] = condition }
        }
        if let then { object["then"] = .string(then) }
        if let otherwise { object["else"] = .string(otherwise) }
        return object
    }
}
