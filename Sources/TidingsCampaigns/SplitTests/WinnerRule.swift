import Foundation
import TidingsModel

/// How a split test picks its winner (`"winner"` of `POST /v1/messages`): the variants go to a share of the
/// audience first; `after` the test sends were resolved (and, for a local time, became due everywhere), the
/// variant with the best conversion rate goes to the rest, and the control group stays out.
public struct WinnerRule: Sendable, Hashable {
    /// What an inconclusive test sends.
    public enum Fallback: Sendable, Hashable {
        /// The variant with the best rate, significant or not.
        case best
        /// This variant.
        case variant(String)

        public var name: String {
            switch self {
            case .best: "best"
            case .variant(let id): id
            }
        }
    }

    /// The share of the audience (above 0, below 1) the variants are tested on.
    public var testShare: Double
    /// Seconds from the end of the test's sends to the decision.
    public var afterSeconds: Int64
    /// The confidence at which the best variant's lead over the runner-up must hold to be significant.
    public var confidence: Double
    public var ifInconclusive: Fallback

    public static let shortestWait = ConversionGoal.shortestWindow
    public static let longestWait = ConversionGoal.longestWindow
    public static let confidenceRange = 0.8...0.99
    public static let defaultConfidence = 0.95

    public init(testShare: Double, afterSeconds: Int64, confidence: Double, ifInconclusive: Fallback) {
        self.testShare = testShare
        self.afterSeconds = afterSeconds
        self.confidence = confidence
        self.ifInconclusive = ifInconclusive
    }

    /// Reads `{"test_share": 0.2, "after": "4h", "confidence": 0.95, "if_inconclusive": "best"}` for a message
    /// with `variants` and a `conversion` goal; `confidence` defaults to 0.95 and `if_inconclusive` to `best`.
    static func parse(_ value: JSONValue, variants: [CampaignVariant], conversion: ConversionGoal?)
        throws(MessageError) -> WinnerRule
    {
        guard let object = value.objectValue else {
            throw .invalid("winner", "must be an object such as {\"test_share\": 0.2, \"after\": \"4h\"}")
        }
        for key in object.keys.sorted() where !["test_share", "after", "confidence", "if_inconclusive"].contains(key) {
            throw .invalid(
                "winner.\(key)", "is not a field of a winner (test_share, after, confidence, if_inconclusive)")
        }
        guard variants.count >= 2 else {
            throw .invalid("winner", "picks one of several variants; give at least 2 variants")
        }
        guard conversion != nil else {
            throw .invalid("winner", "picks the variant that converts best; give a conversion goal")
        }
        guard let share = number(object["test_share"]), share > 0, share < 1 else {
            throw .invalid("winner.test_share", "must be a share of the audience above 0 and below 1, such as 0.2")
        }
        guard let after = object["after"].flatMap(ConversionGoal.seconds), (shortestWait...longestWait).contains(after)
        else {
            throw .invalid(
                "winner.after",
                "must be a wait from 1 minute to 30 days: seconds, or a number with s, m, h or d (\"4h\")")
        }
        var confidence = defaultConfidence
        if let value = object["confidence"], !value.isNull {
            guard let given = number(value), confidenceRange.contains(given) else {
                throw .invalid(
                    "winner.confidence",
                    "must be from \(confidenceRange.lowerBound) to \(confidenceRange.upperBound), such as 0.95")
            }
            confidence = given
        }
        var fallback = Fallback.best
        if let value = object["if_inconclusive"], !value.isNull {
            guard let name = value.stringValue, name == "best" || variants.contains(where: { $0.id == name }) else {
                throw .invalid(
                    "winner.if_inconclusive",
                    "must be best or one of the variants (\(variants.map(\.id).joined(separator: ", ")))")
            }
            fallback = name == "best" ? .best : .variant(name)
        }
        return WinnerRule(testShare: share, afterSeconds: after, confidence: confidence, ifInconclusive: fallback)
    }

    /// A JSON number as a Double (a share written `1` is an integer).
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .double(let number)?: number
        case .integer(let number)?: Double(number)
        default: nil
        }
    }

    /// Whether `subject` is in the test share of the split `splitKey`: a draw independent of the variant's
    /// (``VariantAssignment/point(label:splitKey:subject:)`` with its own label), so the test share holds every
    /// variant and the control group in their proportions.
    public func isTested(splitKey: String, subject: VariantAssignment.Subject) -> Bool {
        Self.isTested(share: testShare, splitKey: splitKey, subject: subject)
    }

    /// Whether `subject` is in a test share of `share` of the split `splitKey`.
    static func isTested(share: Double, splitKey: String, subject: VariantAssignment.Subject) -> Bool {
        VariantAssignment.point(label: drawLabel, splitKey: splitKey, subject: subject) < share
    }

    /// The label of the test-share draw.
    public static let drawLabel = "tidings-winner-test"

    var json: JSONValue {
        [
            "test_share": .double(testShare), "after_seconds": .integer(afterSeconds),
            "confidence": .double(confidence), "if_inconclusive": .string(ifInconclusive.name),
        ]
    }

    /// Reads ``json``; nil when it cannot.
    static func decode(_ value: JSONValue?) -> WinnerRule? {
        guard let value, let share = number(value["test_share"]), let after = value["after_seconds"]?.integerValue,
            let confidence = number(value["confidence"]), let fallback = value["if_inconclusive"]?.stringValue
        else { return nil }
        return WinnerRule(
            testShare: share, afterSeconds: after, confidence: confidence,
            ifInconclusive: fallback == "best" ? .best : .variant(fallback))
    }
}
