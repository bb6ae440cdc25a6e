import Foundation
import TidingsStore

/// What a run's steps ask about its person, answered from the store by the engine (and by a table in tests).
public protocol JourneyFacts {
    /// Whether the person emitted a matching event at or after `since` (unix milliseconds).
    func emitted(_ match: JourneyEventMatch, since: Int64) throws -> Bool
    /// Whether any of the person's installations matches the audience expression.
    func matches(audience: String) throws -> Bool
    /// The person's zone: of the first of their installations that reported one; nil when none did.
    func timeZone() throws -> TimeZone?
    /// The split test of send step `stepID`, whose message picks a winner as `test` says: started now when no
    /// one reached the step before. Nil when the facts keep no tests: the message goes as written.
    func stepTest(stepID: String, test: JourneyStepTest) throws -> JourneyStepTestRecord?
}

extension JourneyFacts {
    public func stepTest(stepID: String, test: JourneyStepTest) throws -> JourneyStepTestRecord? { nil }
}
