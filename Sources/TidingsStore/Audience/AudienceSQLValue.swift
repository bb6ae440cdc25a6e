/// A parameter of a translated audience.
package enum AudienceSQLValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
}
