import Foundation

/// What a run's steps ask about its person, answered from the store by the engine (and by a table in tests).
public protocol JourneyFacts {
    /// Whether the person emitted a matching event at or after `since` (unix milliseconds).
    func emitted(_ match: JourneyEventMatch, since: Int64) throws -> Bool
    /// Whether any of the person's installations matches the audience expression.
    func matches(audience: String) throws -> Bool
    /// The person's zone: of the first of their installations that reported one; nil when none did.
    func timeZone() throws -> TimeZone?
}
