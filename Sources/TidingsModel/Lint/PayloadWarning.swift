/// One finding of ``PayloadLinter``: what is wrong with a push payload, how bad it is, and where.
///
/// ```
/// PayloadWarning(code: "payload_too_large", severity: .error,
///                message: "payload is 4200 bytes, over APNs' limit of 4096 bytes", path: nil)
/// ```
public struct PayloadWarning: Sendable, Hashable {
    /// How bad a finding is.
    public enum Severity: String, Sendable, Hashable, CaseIterable, Comparable {
        /// APNs rejects the payload, or iOS or the extension cannot do what it asks.
        case error
        /// It works, but probably not as intended.
        case warning
        /// Worth knowing; nothing is broken.
        case info

        /// Errors sort first.
        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .error: return 0
            case .warning: return 1
            case .info: return 2
            }
        }
    }

    /// The stable, machine-readable name of a rule (`snake_case`); listed in `docs/lint-rules.md`.
    public struct Code: RawRepresentable, Sendable, Hashable, Comparable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
        public static func < (lhs: Code, rhs: Code) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var code: Code
    public var severity: Severity
    /// One line for a person that names the limit or the fix.
    public var message: String
    /// Where in the payload JSON, dotted (`aps.badge`, `aps.alert.title`), when the finding is about one key.
    public var path: String?

    public init(code: Code, severity: Severity, message: String, path: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.path = path
    }
}
