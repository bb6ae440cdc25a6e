import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Privacy requests for one person: what is held about them, and erasing it.
extension APIService {
    /// The most events an export carries; past it the answer says `events_truncated`.
    static let maximumExportedEvents = 100_000

    /// `GET /v1/users/{user_id}/export`: everything held about the user, as one JSON document: the
    /// installations logged in as the user (without their secrets), the user's tags and profile attributes, and
    /// the events recorded while logged in as the user.
    func exportUser(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let userID = try userParameter(request)
        var installations: [JSONValue] = []
        try forEachInstallation(appID: caller.appID, userID: userID) { installations.append(InstallationJSON.json($0)) }
        let tags = try store.tags(appID: caller.appID, userID: userID)
        let profile = try store.userProfile(appID: caller.appID, userID: userID)
        var events: [JSONValue] = []
        var after: Int64?
        var truncated = false
        repeat {
            let page = try store.events(
                appID: caller.appID, query: EventQuery(userID: userID, afterSequence: after, limit: 1000))
            events += page.events.map(Self.eventJSON)
            after = page.nextSequence
            truncated = events.count >= Self.maximumExportedEvents && after != nil
        } while after != nil && !truncated
        logger.info("user exported", metadata: ["app_id": caller.appID])
        return json([
            "user_id": .string(userID), "exported_at": .integer(now), "installations": .array(installations),
            "tags": .array(tags.map(JSONValue.string)), "attributes": AttributeValue.json(profile?.attributes ?? [:]),
            "events": .array(events), "events_truncated": .bool(truncated),
        ])
    }

    /// `DELETE /v1/users/{user_id}`: every copy of the user id the app's data holds is erased or replaced by
    /// its pseudonym (``ErasureStore/eraseUser(_:)``), a tombstone refuses a silent re-binding, and each
    /// forwarder gets a `user.deleted` record. The audit entry of this request names the pseudonym.
    func deleteUser(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let userID = try userParameter(request)
        let erasure = try userErasure(appID: caller.appID, userID: userID)
        let forgotten = try storeCall { try store.eraseUser(erasure) }
        logger.info("user erased", metadata: ["app_id": caller.appID, "pseudonym": erasure.pseudonym])
        return json([
            "user_id": .string(userID), "pseudonym": .string(erasure.pseudonym),
            "installations_unbound": .integer(Int64(forgotten.installations)),
            "tags_deleted": .integer(Int64(forgotten.tags)), "events_pseudonymised": .integer(Int64(forgotten.events)),
            "messages_pseudonymised": .integer(Int64(forgotten.messages)),
            "audit_entries_pseudonymised": .integer(Int64(forgotten.auditEntries)),
            "forwarder_notices_queued": .integer(Int64(forgotten.forwarderNotices)),
            "profile_deleted": .bool(forgotten.profiles > 0),
        ])
    }

    /// The `user_id` path parameter: 1 to 256 bytes.
    func userParameter(_ request: HTTPRequest) throws -> String {
        let userID = try parameter(request, "user_id")
        guard (1...256).contains(userID.utf8.count) else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "user_id must be 1 to 256 bytes")
        }
        return userID
    }
}
