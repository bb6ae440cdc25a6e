/// A test of what an installation did: `event purchase count >= 2 within 30d`, `event open within 14d`.
///
/// It counts the installation's events of one type, over the whole retention or the last `within` seconds, and
/// compares the count with a number; without a `count`, it is "at least once".
public struct AudienceEventCondition: Sendable, Hashable {
    /// The event type: a built-in one (`open`) or the app's own (`purchase`).
    public var type: String
    public var comparison: AudienceCondition.Operator
    public var count: Int
    /// How far back events count, in seconds before the audience is resolved; nil for every stored event.
    public var withinSeconds: Int64?

    public init(
        type: String, comparison: AudienceCondition.Operator = .greaterOrEqual, count: Int = 1,
        withinSeconds: Int64? = nil
    ) {
        self.type = type
        self.comparison = comparison
        self.count = count
        self.withinSeconds = withinSeconds
    }

    /// The largest count a condition may compare with.
    public static let maximumCount = 1_000_000

    /// How the condition is written, so that parsing it again gives it back.
    public var text: String {
        var text = "event \(type) count \(comparison.rawValue) \(count)"
        if let withinSeconds { text += " within \(withinSeconds)s" }
        return text
    }

    /// The counts that satisfy the condition as a range `lower ..< upper` (no `upper`: unbounded), or every
    /// count outside it when `complement` (`!=`). The SQL tests "at least `lower`" and "not at least `upper`".
    var bounds: (lower: Int, upper: Int?, complement: Bool) {
        switch comparison {
        case .greaterOrEqual: (count, nil, false)
        case .greater: (count + 1, nil, false)
        case .lessOrEqual: (0, count + 1, false)
        case .less: (0, count, false)
        case .notEqual: (count, count + 1, true)
        default: (count, count + 1, false)
        }
    }
}
