import Foundation
import TidingsModel

/// A journey as its editor defines it: what enters people, how often, what makes them leave, and the steps
/// each walks. Immutable once stored as a version: editing a journey stores a new one.
public struct JourneyDefinition: Sendable, Hashable {
    public var name: String
    public var trigger: JourneyTrigger
    public var entry: JourneyEntryRule
    public var exits: [JourneyEventMatch]
    public var steps: [JourneyStep]
    /// The zone of a person none of whose installations reported one; nil: UTC.
    public var fallbackTimeZone: String?

    public static let maximumSteps = 50
    public static let maximumExits = 10
    public static let maximumNameLength = 200

    public init(
        name: String, trigger: JourneyTrigger, entry: JourneyEntryRule = .everyTime, exits: [JourneyEventMatch] = [],
        steps: [JourneyStep], fallbackTimeZone: String? = nil
    ) {
        self.name = name
        self.trigger = trigger
        self.entry = entry
        self.exits = exits
        self.steps = steps
        self.fallbackTimeZone = fallbackTimeZone
    }

    /// Reads and checks a definition whole.
    /// - Parameters:
    ///   - checkMessage: the problems of a send step's message body (paths relative to the body), as a
    ///     `POST /v1/messages` would refuse it.
    ///   - checkAudience: the problem of an audience expression, nil when it is valid.
    /// - Throws: every problem found, each with its path.
    public static func parse(
        _ value: JSONValue, checkMessage: @escaping ([String: JSONValue]) -> [JourneyProblem],
        checkAudience: @escaping (String) -> String?
    ) throws(JourneyDefinitionError) -> JourneyDefinition {
        var parser = JourneyDefinitionParser(checkMessage: checkMessage, checkAudience: checkAudience)
        let definition = parser.definition(value)
        guard parser.problems.isEmpty, let definition else {
            throw JourneyDefinitionError(problems: parser.problems)
        }
        return definition
    }

    /// The definition as stored and shown: it parses back to itself.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "trigger": trigger.json, "entry": entry.json,
            "exit": .array(exits.map(\.json)), "steps": .array(steps.map(\.json)),
        ]
        if let fallbackTimeZone { object["fallback_time_zone"] = .string(fallbackTimeZone) }
        return .object(object)
    }

    public func step(_ id: String) -> JourneyStep? { steps.first { $0.id == id } }

    /// The step a run goes to after `step` when the step names none: the next in the list, or nil at the end.
    public func following(_ id: String) -> String? {
        guard let index = steps.firstIndex(where: { $0.id == id }), index + 1 < steps.count else { return nil }
        return steps[index + 1].id
    }

    /// Where each way out of `step` leads (nil: the end of the journey); none for an exit.
    func successors(of step: JourneyStep) -> [String?] {
        let after = step.next ?? following(step.id)
        switch step.kind {
        case .send: return [after]
        case .wait(.forEvent(_, _, let onEvent, let onTimeout)): return [onEvent ?? after, onTimeout ?? after]
        case .wait: return [after]
        case .branch(let branch): return [branch.then ?? after, branch.otherwise ?? after]
        case .split(let paths): return paths.filter { !$0.isControl }.map { $0.next ?? after }
        case .exit: return []
        }
    }
}
