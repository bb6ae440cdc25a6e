import Foundation

/// Finds what APNs, iOS or the Notification Service Extension would trip over in a push payload.
///
/// ```
/// let warnings = PayloadLinter().lint(PayloadLintInput(payload: payload, json: json, sizeInBytes: bytes.count,
///                                                      now: Date()))
/// if warnings.contains(where: { $0.severity == .error }) { /* do not send */ }
/// ```
///
/// Rules are pure functions listed in ``PayloadLintRule/catalog``; each is documented in `docs/lint-rules.md`.
public struct PayloadLinter: Sendable {
    /// The rules this linter runs, in order.
    public var rules: [PayloadLintRule]

    public init(rules: [PayloadLintRule] = PayloadLintRule.catalog) {
        self.rules = rules
    }

    /// Every finding, errors first, then warnings, then info; within a severity in rule order.
    public func lint(_ input: PayloadLintInput) -> [PayloadWarning] {
        let warnings = rules.flatMap { $0.evaluate(input) }
        // A stable sort keeps rule order inside each severity.
        return warnings.enumerated()
            .sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }
            .map(\.element)
    }

    /// The payload size APNs accepts: 4096 bytes, or 5120 bytes for a VoIP push.
    ///
    /// - Important: APNs answers a larger payload with HTTP 413 `PayloadTooLarge`.
    public static func maximumSize(isVoIP: Bool) -> Int {
        isVoIP ? 5120 : 4096
    }
}
