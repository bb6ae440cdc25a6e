import Foundation
import TidingsCrypto
import TidingsModel

/// Walks a run from the step it is due at until it waits or ends: the decisions of a journey, with no store,
/// no clock and no HTTP (the engine supplies the time and the facts).
public struct JourneyStepper: Sendable {
    public var journeyID: String
    public var definition: JourneyDefinition

    public init(journeyID: String, definition: JourneyDefinition) {
        self.journeyID = journeyID
        self.definition = definition
    }

    /// The ending reason of exit condition `match`.
    public static func exitReason(_ match: JourneyEventMatch) -> String { "event:" + match.type }

    /// Runs from step `stepID` (nil: the run is past the last step) at `now`, for the person `subject` who
    /// entered at `enteredAt`.
    ///
    /// Exit conditions are checked first, at every step: an exit event stored since the person entered ends the
    /// run where it stands, before anything more is sent.
    public func advance(
        from stepID: String?, subject: String, enteredAt: Int64, now: Int64, facts: some JourneyFacts
    ) throws -> JourneyAdvance {
        var visited: [String] = []
        var sends: [String] = []
        var tested: Set<String> = []
        var winners: [String: String] = [:]
        var current = stepID
        func finish(_ outcome: JourneyAdvance.Outcome) -> JourneyAdvance {
            JourneyAdvance(visited: visited, sends: sends, outcome: outcome, tested: tested, winners: winners)
        }
        // Validation forbids a loop without a wait, so a walk passes each step at most once; the bound keeps
        // a definition stored before a rule was added from spinning.
        for _ in 0...definition.steps.count {
            for exit in definition.exits where try facts.emitted(exit, since: enteredAt) {
                return finish(.ended(at: visited.last ?? current ?? "", reason: Self.exitReason(exit)))
            }
            guard let id = current, let step = definition.step(id) else {
                return finish(.ended(at: visited.last ?? "", reason: "completed"))
            }
            visited.append(id)
            let after = step.next ?? definition.following(id)
            switch step.kind {
            case .send(let message):
                if let test = JourneyStepTest(message: message),
                    let started = try facts.stepTest(stepID: id, test: test)
                {
                    switch test.turn(subject: subject, journeyID: journeyID, stepID: id, test: started, now: now) {
                    case .test: tested.insert(id)
                    case .winner(let variant): winners[id] = variant
                    case .hold(let until):
                        // Counted as entered when the person passes the step, not at each look while waiting.
                        visited.removeLast()
                        return finish(.waiting(at: id, until: until, resume: id, event: nil, onEvent: nil))
                    }
                }
                sends.append(id)
                current = after
            case .wait(let wait):
                let (until, event, onEvent): (Int64, JourneyEventMatch?, String?)
                var resume = after
                switch wait {
                case .duration(let seconds):
                    (until, event, onEvent) = (now + seconds * 1000, nil, nil)
                case .untilLocalTime(let clock):
                    let zone =
                        try facts.timeZone() ?? definition.fallbackTimeZone.flatMap { TimeZone(identifier: $0) } ?? .gmt
                    let instant = clock.next(after: Date(millisecondsSince1970: now), in: zone)
                    (until, event, onEvent) = (instant.millisecondsSince1970, nil, nil)
                case .forEvent(let match, let timeout, let eventNext, let timeoutNext):
                    resume = timeoutNext ?? after
                    (until, event, onEvent) = (now + timeout * 1000, match, eventNext ?? after)
                }
                return finish(.waiting(at: id, until: until, resume: resume, event: event, onEvent: onEvent))
            case .branch(let branch):
                let holds: Bool
                switch branch.condition {
                case .audience(let expression): holds = try facts.matches(audience: expression)
                case .event(let match): holds = try facts.emitted(match, since: enteredAt)
                }
                current = (holds ? branch.then : branch.otherwise) ?? after
            case .split(let paths):
                let path = Self.draw(paths, journeyID: journeyID, stepID: id, subject: subject)
                if path.isControl {
                    return finish(.ended(at: id, reason: "control"))
                }
                current = path.next ?? after
            case .exit:
                return finish(.ended(at: id, reason: "exit_step"))
            }
        }
        return finish(.ended(at: visited.last ?? "", reason: "loop"))
    }

    /// The person's path: a deterministic draw by journey, step and person, so a repeated walk (after a crash
    /// before its commit) takes the same one, weighted by the paths' weights.
    static func draw(_ paths: [JourneySplitPath], journeyID: String, stepID: String, subject: String)
        -> JourneySplitPath
    {
        let digest = SHA256Digest.hash("journey-split\u{1F}\(journeyID)\u{1F}\(stepID)\u{1F}\(subject)")
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let total = UInt64(paths.reduce(0) { $0 + $1.weight })
        var point = number % total
        for path in paths {
            if point < UInt64(path.weight) { return path }
            point -= UInt64(path.weight)
        }
        return paths[paths.count - 1]
    }
}
