/// What the store did with one row of an import.
public enum ImportRowOutcome: Sendable, Hashable {
    /// At least one of its installations is new.
    case imported
    /// It changed installations or tags that were there.
    case updated
    /// Everything it says was already stored (a re-run).
    case unchanged
    /// Nothing of it was written: `column` of the file broke `rule`.
    case rejected(column: String, rule: String, message: String)
}
