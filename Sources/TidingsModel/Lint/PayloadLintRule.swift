/// One lint rule: a stable code, a severity, and a pure check over ``PayloadLintInput``.
///
/// The built-in rules are the table ``PayloadLintRule/catalog``; an app can add its own:
///
/// ```
/// let rule = PayloadLintRule("no_campaign", .info, "a send without a campaign id") { input in
///     input.payload.campaignID == nil ? [.init("no campaign id: the send is not grouped in reports")] : []
/// }
/// let linter = PayloadLinter(rules: PayloadLintRule.catalog + [rule])
/// ```
public struct PayloadLintRule: Sendable {
    /// What a check reports: a message, and the JSON path when the finding is about one key.
    public struct Finding: Sendable, Hashable {
        public var message: String
        public var path: String?

        public init(_ message: String, path: String? = nil) {
            self.message = message
            self.path = path
        }
    }

    public typealias Check = @Sendable (PayloadLintInput) -> [Finding]

    public var code: PayloadWarning.Code
    public var severity: PayloadWarning.Severity
    /// What the rule looks for, in a few words (for listings and docs).
    public var summary: String
    public var check: Check

    public init(
        _ code: PayloadWarning.Code, _ severity: PayloadWarning.Severity, _ summary: String,
        _ check: @escaping Check
    ) {
        self.code = code
        self.severity = severity
        self.summary = summary
        self.check = check
    }

    /// Runs the check and stamps each finding with this rule's code and severity.
    public func evaluate(_ input: PayloadLintInput) -> [PayloadWarning] {
        check(input).map { PayloadWarning(code: code, severity: severity, message: $0.message, path: $0.path) }
    }
}
