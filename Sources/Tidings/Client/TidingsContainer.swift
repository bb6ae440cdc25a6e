import Foundation
import TidingsSQLite

/// The files the app and its Notification Service Extension share in the App Group container: the event
/// queue, the inbox, the badge counter and the installation id.
///
/// Both processes open the same files; every piece is safe to use from two processes at once (WAL
/// databases, immediate transactions, an id created by hard link).
///
/// ```swift
/// let container = try TidingsContainer(directory: appGroupURL)
/// try container.inbox.unreadCount()
/// ```
public final class TidingsContainer: Sendable {
    /// The name of the database holding the inbox and the badge counter.
    public static let databaseFileName = "tidings.sqlite"

    /// The shared directory.
    public let directory: URL
    /// The durable analytics queue.
    public let events: EventStore
    /// The message inbox.
    public let inbox: Inbox
    /// The badge number shared with the extension.
    public let badge: BadgeCounter
    /// This installation's id.
    public let identity: InstallationIdentity

    /// Opens (creating when missing) the shared files in `directory`.
    ///
    /// - Throws: ``EventStoreError``, ``InboxError``, ``RegistrationError`` or `SQLiteError` when a file
    ///   cannot be opened or created.
    public init(
        directory: URL, badgePolicy: BadgePolicy = BadgePolicy(), clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(label: "tidings.container")
    ) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        identity = try InstallationIdentity.loadOrCreate(in: directory)
        events = try EventStore(directory: directory, clock: clock, logger: logger)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent(Self.databaseFileName).path)
        inbox = try Inbox(database: database, clock: clock)
        badge = try BadgeCounter(database: database, policy: badgePolicy)
    }
}
