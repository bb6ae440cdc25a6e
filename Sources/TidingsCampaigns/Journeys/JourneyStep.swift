import TidingsModel

/// One step of a journey.
public struct JourneyStep: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A `POST /v1/messages` body without a target: sent to the person's installations.
        case send(message: [String: JSONValue])
        case wait(JourneyWait)
        case branch(JourneyBranch)
        case split([JourneySplitPath])
        case exit
    }

    public var id: String
    /// The step after this one when it says; otherwise the one after it in the list.
    public var next: String?
    public var kind: Kind

    public init(id: String, next: String? = nil, kind: Kind) {
        self.id = id
        self.next = next
        self.kind = kind
    }

    /// `send`, `wait`, `branch`, `split` or `exit`.
    public var typeName: String {
        switch kind {
        case .send: "send"
        case .wait: "wait"
        case .branch: "branch"
        case .split: "split"
        case .exit: "exit"
        }
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["id": .string(id), "type": .string(typeName)]
        if let next { object["next"] = .string(next) }
        switch kind {
        case .send(let message): object["message"] = .object(message)
        case .wait(let wait): object.merge(wait.fields) { _, new in new }
        case .branch(let branch): object.merge(branch.fields) { _, new in new }
        case .split(let paths): object["paths"] = .array(paths.map(\.json))
        case .exit: break
        }
        return .object(object)
    }
}
