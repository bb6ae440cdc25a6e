import Foundation

/// Keeps a notification in the app's inbox, until it expires.
public struct InboxPolicy: Sendable, Hashable {
    /// After this the entry is purged; nil keeps it until the app deletes it.
    public var expiresAt: Date?

    public init(expiresAt: Date? = nil) {
        self.expiresAt = expiresAt
    }
}
