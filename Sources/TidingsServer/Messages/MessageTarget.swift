/// Who a message goes to.
public enum MessageTarget: Sendable, Hashable {
    case installations([String])
    case users([String])
    case tags(TagExpression)
    /// Every installation of the app.
    case all

    /// The most ids a list target may name.
    public static let maximumIDs = 10_000
}
