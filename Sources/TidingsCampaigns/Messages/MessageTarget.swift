import TidingsStore

/// Who a message goes to.
public enum MessageTarget: Sendable, Hashable {
    case installations([String])
    case users([String])
    case tags(TagExpression)
    /// The installations an audience expression selects (docs/audiences.md).
    case audience(AudienceExpression)
    /// Every installation of the app.
    case all

    /// The most ids a list target may name.
    public static let maximumIDs = 10_000
}
