import Foundation
import TidingsModel

/// What the app reported about its Live Activity tokens and what the server already has, kept in the
/// shared container (`live-activities.json`) so a token reported offline or before a crash still goes out.
struct LiveActivityRecord: Sendable, Hashable, Codable {
    /// One token the server should have.
    struct Entry: Sendable, Hashable, Codable {
        var attributesType: String
        /// Lower-case hex.
        var token: String
        /// When the app reported it, in milliseconds since 1970: an update token older than an activity can
        /// live is dropped.
        var reportedAt: Int64
        /// Whether the server confirmed this very token.
        var acknowledged = false
    }

    /// Update tokens by activity id.
    var activities: [String: Entry] = [:]
    /// Push-to-start tokens by attributes type.
    var pushToStart: [String: Entry] = [:]
    /// Tokens to delete on the server: update tokens by activity id, push-to-start tokens by attributes type.
    var removedActivities: Set<String> = []
    var removedPushToStart: Set<String> = []
    /// Transient failures in a row, and no request before `notBefore` (milliseconds since 1970).
    var failures = 0
    var notBefore: Int64?

    static let fileName = "live-activities.json"

    static func load(from directory: URL) -> LiveActivityRecord? {
        let file = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return LiveActivityRecord() }
        return try? JSONDecoder().decode(LiveActivityRecord.self, from: data)
    }

    /// Writes atomically (a temporary file renamed over the old one).
    func save(to directory: URL) throws(RegistrationError) {
        let file = directory.appendingPathComponent(Self.fileName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(self).write(to: file, options: [.atomic])
        } catch {
            throw .storage("cannot write \(file.path): \(error)")
        }
    }

    /// Whether anything is still to be sent.
    var hasPendingWork: Bool {
        !removedActivities.isEmpty || !removedPushToStart.isEmpty
            || activities.values.contains { !$0.acknowledged } || pushToStart.values.contains { !$0.acknowledged }
    }
}
