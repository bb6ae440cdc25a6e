import Foundation
import TidingsModel
import TidingsStore

/// The split test of a journey send step whose message picks its winner (`"winner"`), on a stream of people
/// rather than a fixed audience: the test starts when the first person reaches the step (of that journey
/// version); until `after` has passed, the test share (drawn as campaigns draw it) gets the message as written,
/// its variants and its control group; everyone else waits at the step. The decision is due when the test
/// period's last sends have had their conversion window; from then on, the waiting people and everyone who
/// reaches the step later get the winner, and the control group still gets nothing.
public struct JourneyStepTest: Sendable, Hashable {
    /// What a person reaching the step gets.
    public enum Turn: Sendable, Hashable {
        /// The message as written: the person is in the test share during the test period.
        case test
        /// Nothing yet: the person waits at the step and is asked again at `until` (unix milliseconds).
        case hold(until: Int64)
        /// The message with only this variant (and the control group held back as before).
        case winner(String)
    }

    public var rule: WinnerRule
    public var goal: ConversionGoal
    /// The variants' ids, in the message's order.
    public var variants: [String]

    /// How long a person whose decision is due but not yet recorded waits before the step looks again: the
    /// instance that leads the scheduled work decides at its next look.
    public static let recheckMilliseconds: Int64 = 15_000

    public init(rule: WinnerRule, goal: ConversionGoal, variants: [String]) {
        self.rule = rule
        self.goal = goal
        self.variants = variants
    }

    /// The test of a send step's message; nil when the message picks no winner, or cannot be read (a stored
    /// journey's messages were checked when it was stored).
    public init?(message: [String: JSONValue]) {
        guard let winner = message["winner"], !winner.isNull else { return nil }
        var probe = message
        // Read as it will be sent: to one person.
        probe["target"] = .object(["user_ids": .array([.string("journey-step-test")])])
        guard let request = try? MessageRequest.parse(probe, now: Date()), let rule = request.winner,
            let goal = request.conversion
        else { return nil }
        self.init(rule: rule, goal: goal, variants: request.variants.map(\.id))
    }

    /// The key of the step's variant and test-share draws: the step's campaign id, as its messages carry it.
    public static func splitKey(journeyID: String, stepID: String) -> String { "journey:\(journeyID):\(stepID)" }

    /// The test as it starts at `startedAt`, to be stored.
    public func record(appID: String, journeyID: String, version: Int, stepID: String, startedAt: Int64)
        -> JourneyStepTestRecord
    {
        let testEndsAt = startedAt + rule.afterSeconds * 1000
        return JourneyStepTestRecord(
            appID: appID, journeyID: journeyID, version: version, stepID: stepID, startedAt: startedAt,
            testEndsAt: testEndsAt, decideAt: testEndsAt + goal.withinSeconds * 1000,
            rule: (try? json.serializedString(sortedKeys: true)) ?? "{}")
    }

    /// What `subject` (`user:ID` or `installation:ID`, as journey runs name people) gets at the step at `now`,
    /// given the stored `test`.
    public func turn(subject: String, journeyID: String, stepID: String, test: JourneyStepTestRecord, now: Int64)
        -> Turn
    {
        if let winner = test.winner { return .winner(winner) }
        if now < test.testEndsAt,
            rule.isTested(splitKey: Self.splitKey(journeyID: journeyID, stepID: stepID), subject: Self.subject(subject))
        {
            return .test
        }
        return .hold(until: max(test.decideAt, now + Self.recheckMilliseconds))
    }

    static func subject(_ text: String) -> VariantAssignment.Subject {
        if text.hasPrefix("user:") { return .user(String(text.dropFirst(5))) }
        return .installation(String(text.dropFirst("installation:".count)))
    }

    /// The decision of `conversions` (by variant id, the control group under ``CampaignVariant/controlID``).
    public func decide(conversions: [String: ConversionCount]) -> WinnerDecision {
        WinnerDecision(rule: rule, variants: variants, conversions: conversions)
    }

    var json: JSONValue {
        ["rule": rule.json, "conversion": goal.json, "variants": .array(variants.map { .string($0) })]
    }

    /// Reads what ``record(appID:journeyID:version:stepID:startedAt:)`` stored; nil when it cannot.
    public static func decode(_ text: String) -> JourneyStepTest? {
        guard let value = try? JSONValue.parse(text), let rule = WinnerRule.decode(value["rule"]),
            let goal = ConversionGoal.decode(value["conversion"]),
            let variants = value["variants"]?.arrayValue?.compactMap(\.stringValue), variants.count >= 2
        else { return nil }
        return JourneyStepTest(rule: rule, goal: goal, variants: variants)
    }
}
