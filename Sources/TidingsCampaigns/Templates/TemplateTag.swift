import TidingsModel
import TidingsStore

/// One `{{ ... }}` of a template: what it names (or a quoted literal) and its filters.
public struct TemplateTag: Sendable, Hashable {
    /// What a tag shows before its filters.
    public enum Expression: Sendable, Hashable {
        case variable(TemplateVariable)
        /// A quoted string: `{{ "{{" }}` writes a literal `{{`.
        case literal(String)
    }

    public var expression: Expression
    public var filters: [TemplateFilter]
    /// The 0-based character offset of the tag's `{{`.
    public var position: Int

    public init(expression: Expression, filters: [TemplateFilter], position: Int) {
        self.expression = expression
        self.filters = filters
        self.position = position
    }

    /// Whether the tag renders something for every installation: a literal, a field every installation has,
    /// or anything with a `default`.
    public var alwaysRenders: Bool {
        if case .variable(let variable) = expression, !variable.isAlwaysPresent {
            return filters.contains { if case .default = $0 { true } else { false } }
        }
        return true
    }

    /// The tag's text for `installation`: empty when its value is missing (which ``alwaysRenders`` rules out
    /// for accepted messages).
    func render(_ installation: Installation) -> String {
        var value: AttributeValue? =
            switch expression {
            case .variable(let variable): variable.value(in: installation)
            case .literal(let text): .string(text)
            }
        for filter in filters { value = filter.apply(value) }
        return value?.text ?? ""
    }
}
