import Foundation
import TidingsModel

/// Keeps the server's copy of this installation's Live Activity tokens right: the update token of each
/// running activity and the push-to-start token (iOS 17.2+) of each attributes type (docs/live-activities.md).
///
/// ```swift
/// await client.liveActivities.didUpdateToken(token, activityID: "order-42", attributesType: "Delivery")
/// await client.liveActivities.didUpdatePushToStartToken(token, attributesType: "Delivery")
/// await client.liveActivities.activityDidEnd(activityID: "order-42")
/// ```
///
/// Each report is written to the shared container at once and then sent, after the registrar's own sync
/// (the server needs the installation first), with the installation secret, through the registrar's
/// transport. A transient failure (no answer, 5xx, 429, 408, the installation unknown yet) backs off with
/// the registrar's ``RetryPolicy`` (full jitter), persisted, and the next ``sync()`` after it sends what is
/// left. A token the server refuses as malformed (400) is dropped; a refused key (401/403) stops sending
/// until the next report. Update tokens older than ``maximumActivityAge`` are removed: iOS ends an activity
/// after 8 hours and takes it off the Lock Screen at most 4 hours later.
///
/// The ActivityKit glue (`TidingsLiveActivities`) only forwards token streams and activity states here.
public actor LiveActivityRegistry {
    /// The longest an activity's token is kept without being reported again.
    public static let maximumActivityAge: Duration = .seconds(12 * 3600)

    private let registrar: InstallationRegistrar
    private let directory: URL
    private let clock: any TidingsClock
    private let logger: Logger
    private var random: SendableRandomSource
    private var record: LiveActivityRecord
    private var halt: RegistrationError?

    /// Opens the record in `directory` (the shared container); an unreadable one is replaced by an empty one,
    /// as the app reports its tokens again on launch.
    public init(
        registrar: InstallationRegistrar, directory: URL, clock: any TidingsClock = SystemClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), logger: Logger = .disabled()
    ) {
        self.registrar = registrar
        self.directory = directory
        self.clock = clock
        self.logger = logger
        self.random = SendableRandomSource(random)
        if let loaded = LiveActivityRecord.load(from: directory) {
            record = loaded
        } else {
            logger.warning("starting the Live Activity record afresh: it could not be read")
            record = LiveActivityRecord()
        }
    }

    /// The activities whose update token the registry holds, by activity id, with their attributes type.
    public var activities: [String: String] { record.activities.mapValues(\.attributesType) }
    /// The attributes types whose push-to-start token the registry holds.
    public var pushToStartTypes: Set<String> { Set(record.pushToStart.keys) }
    /// Whether registrations or removals are still to reach the server.
    public var hasPendingWork: Bool { record.hasPendingWork }

    /// A new or changed update token of `activityID` (`activity.pushTokenUpdates`); sends it.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for a token of the wrong length, or an id or type
    ///   that is not 1 to 128 characters of letters, digits and `_.:@+-`.
    @discardableResult
    public func didUpdateToken(
        _ token: Data, activityID: String, attributesType: String
    ) async throws(RegistrationError) -> LiveActivitySyncResult {
        let hex = try Self.validate(token, activityID, attributesType)
        if record.activities[activityID]?.token != hex {
            record.activities[activityID] = .init(attributesType: attributesType, token: hex, reportedAt: nowMS)
        } else {
            record.activities[activityID]?.reportedAt = nowMS
        }
        record.removedActivities.remove(activityID)
        return await changed()
    }

    /// A new or changed push-to-start token of `attributesType` (`Activity.pushToStartTokenUpdates`); sends it.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` as ``didUpdateToken(_:activityID:attributesType:)``.
    @discardableResult
    public func didUpdatePushToStartToken(
        _ token: Data, attributesType: String
    ) async throws(RegistrationError) -> LiveActivitySyncResult {
        let hex = try Self.validate(token, attributesType, attributesType)
        if record.pushToStart[attributesType]?.token != hex {
            record.pushToStart[attributesType] = .init(attributesType: attributesType, token: hex, reportedAt: nowMS)
        }
        record.removedPushToStart.remove(attributesType)
        return await changed()
    }

    /// The activity ended, was dismissed or went stale for good: its token is removed here and on the server.
    @discardableResult
    public func activityDidEnd(activityID: String) async -> LiveActivitySyncResult {
        guard record.activities.removeValue(forKey: activityID) != nil else { return .synced(changes: 0) }
        record.removedActivities.insert(activityID)
        return await changed()
    }

    /// Push-to-start for `attributesType` is no longer wanted (Live Activities turned off): removes its token.
    @discardableResult
    public func removePushToStartToken(attributesType: String) async -> LiveActivitySyncResult {
        guard record.pushToStart.removeValue(forKey: attributesType) != nil else { return .synced(changes: 0) }
        record.removedPushToStart.insert(attributesType)
        return await changed()
    }

    /// Sends what is pending, unless backoff is running or a refused key stopped it.
    public func sync() async -> LiveActivitySyncResult {
        expireOldActivities()
        if let halt { return .failed(halt) }
        if let notBefore = record.notBefore, notBefore > nowMS {
            return .deferred(
                retryAt: Date(timeIntervalSince1970: Double(notBefore) / 1000),
                reason: .unavailable(status: 0, message: "backing off"))
        }
        guard record.hasPendingWork else { return .synced(changes: 0) }
        // The server answers 404 for tokens of an installation it does not know yet.
        _ = await registrar.sync()
        var changes = 0
        let installationID = registrar.identity.installationID
        do throws(RegistrationError) {
            for activityID in record.removedActivities.sorted() {
                try await delete(["v1", "installations", installationID, "live-activities", activityID])
                record.removedActivities.remove(activityID)
                changes += 1
            }
            for type in record.removedPushToStart.sorted() {
                try await delete(["v1", "installations", installationID, "push-to-start-tokens", type])
                record.removedPushToStart.remove(type)
                changes += 1
            }
            for (activityID, entry) in record.activities.sorted(by: { $0.key < $1.key }) where !entry.acknowledged {
                let body: JSONValue = [
                    "token": .string(entry.token), "attributes_type": .string(entry.attributesType),
                ]
                if try await put(["v1", "installations", installationID, "live-activities", activityID], body) {
                    // A token reported while the request was out is still to be sent.
                    let unchanged = record.activities[activityID]?.token == entry.token
                    record.activities[activityID]?.acknowledged = unchanged
                } else {
                    record.activities[activityID] = nil
                }
                changes += 1
            }
            for (type, entry) in record.pushToStart.sorted(by: { $0.key < $1.key }) where !entry.acknowledged {
                let body: JSONValue = ["token": .string(entry.token)]
                if try await put(["v1", "installations", installationID, "push-to-start-tokens", type], body) {
                    let unchanged = record.pushToStart[type]?.token == entry.token
                    record.pushToStart[type]?.acknowledged = unchanged
                } else {
                    record.pushToStart[type] = nil
                }
                changes += 1
            }
        } catch {
            return failed(error)
        }
        record.failures = 0
        record.notBefore = nil
        persist()
        return .synced(changes: changes)
    }

    // MARK: - Requests

    /// PUTs `body`; false when the server refused it as malformed (400/422), so it is dropped.
    private func put(_ path: [String], _ body: JSONValue) async throws(RegistrationError) -> Bool {
        let bytes = (try? body.serialized(sortedKeys: true)) ?? []
        do {
            _ = try await registrar.send(await registrar.request("PUT", path, body: bytes))
            return true
        } catch .rejected(let status, let code, let message) where status == 400 || status == 422 {
            logger.warning(
                "the server refused a Live Activity token; dropping it",
                metadata: ["code": code, "message": message])
            return false
        }
    }

    /// DELETEs; a 404 means the server has nothing to remove, which is what was wanted.
    private func delete(_ path: [String]) async throws(RegistrationError) {
        do {
            _ = try await registrar.send(await registrar.request("DELETE", path))
        } catch .notFound {
            return
        }
    }

    // MARK: - State

    private var nowMS: Int64 { clock.now.millisecondsSince1970 }

    private func changed() async -> LiveActivitySyncResult {
        halt = nil
        record.notBefore = nil
        persist()
        return await sync()
    }

    private func failed(_ error: RegistrationError) -> LiveActivitySyncResult {
        switch error {
        case .unauthorized:
            halt = error
            persist()
            return .failed(error)
        default:
            record.failures += 1
            let ceiling = registrar.configuration.retryPolicy.backoffCeiling(failures: record.failures - 1)
            // Full jitter; a plain remainder, so a generator that always answers the same still terminates.
            let delay = Int64(random.next() % UInt64(max(0, ceiling) + 1))
            record.notBefore = nowMS + delay
            persist()
            return .deferred(retryAt: Date(timeIntervalSince1970: Double(nowMS + delay) / 1000), reason: error)
        }
    }

    private func expireOldActivities() {
        let oldest = nowMS - Int64(Self.maximumActivityAge.components.seconds) * 1000
        for (activityID, entry) in record.activities where entry.reportedAt < oldest {
            record.activities[activityID] = nil
            record.removedActivities.insert(activityID)
        }
    }

    private func persist() {
        do {
            try record.save(to: directory)
        } catch {
            logger.warning("Live Activity record not saved", metadata: ["error": error.description])
        }
    }

    /// The token in lower-case hex, after checking it and the names the server will check.
    private static func validate(_ token: Data, _ id: String, _ type: String) throws(RegistrationError) -> String {
        guard (32...256).contains(token.count) else {
            throw .invalidToken("a Live Activity token is 32 to 256 bytes; this one is \(token.count)")
        }
        for name in [id, type] where !isIdentifier(name) {
            throw .invalidToken(
                "'\(name.prefix(80))' must be 1 to 128 characters of letters, digits and _.:@+-, other than . and ..")
        }
        return token.map { String(format: "%02x", $0) }.joined()
    }

    /// The server's rule for identifiers (`ResourceIdentifier` there), so a name it would refuse fails here first.
    static func isIdentifier(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 128, value != ".", value != ".." else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
