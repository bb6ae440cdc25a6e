import TidingsModel
import TidingsStore

/// One bounded step through a message's audience: the installations it reached after a cursor, and the cursor
/// after them.
///
/// Cursors by target: a list of installation or user ids keeps the position in the list (as text); tags, audiences
/// and `all` keep the last installation id read (keyset pagination in installation-id order), so a chunk costs the
/// same at the millionth installation as at the first.
public struct AudienceChunk {
    public struct Member {
        public var installation: Installation
        /// For a message to users (or matched through a user's tags): the user it was reached as.
        public var targetUserID: String?
    }

    public var members: [Member] = []
    /// Named installation ids the app does not have.
    public var unknownInstallationIDs: [String] = []
    public var cursor: String?
    public var finished: Bool

    /// Users read per chunk of a `user_ids` target (each has a handful of installations).
    static let usersPerChunk = 100

    /// - Parameter now: What an audience's relative times count back from: the same for every chunk of a message.
    public static func read(
        plan: CampaignPlan, appID: String, cursor: String?, limit: Int, now: Int64, store: any Store
    )
        throws -> AudienceChunk
    {
        let limit = max(1, limit)
        let target: MessageTarget
        do {
            target = try MessageRequest.target(plan.target)
        } catch {
            // Validated when the message was accepted; a plan that no longer parses resolves to nobody.
            return AudienceChunk(cursor: cursor, finished: true)
        }
        switch target {
        case .installations(let ids):
            let start = min(ids.count, Int(cursor ?? "0") ?? 0)
            let end = min(ids.count, start + limit)
            let slice = Array(ids[start..<end])
            let found = try store.installations(appID: appID, installationIDs: slice)
            let byID = Dictionary(found.map { ($0.installationID, $0) }, uniquingKeysWith: { first, _ in first })
            var chunk = AudienceChunk(cursor: String(end), finished: end >= ids.count)
            for id in slice {
                if let installation = byID[id] {
                    chunk.members.append(Member(installation: installation, targetUserID: nil))
                } else {
                    chunk.unknownInstallationIDs.append(id)
                }
            }
            return chunk
        case .users(let userIDs):
            let users = Set(userIDs).sorted()
            let start = min(users.count, Int(cursor ?? "0") ?? 0)
            let end = min(users.count, start + min(limit, usersPerChunk))
            var chunk = AudienceChunk(cursor: String(end), finished: end >= users.count)
            for userID in users[start..<end] {
                var after: String?
                while true {
                    let page = try store.installations(
                        appID: appID, query: InstallationQuery(userID: userID, afterInstallationID: after, limit: limit)
                    )
                    chunk.members += page.map { Member(installation: $0, targetUserID: userID) }
                    guard page.count == limit, let last = page.last else { break }
                    after = last.installationID
                }
            }
            return chunk
        case .tags(let expression):
            let page = try store.installations(
                appID: appID, query: InstallationQuery(afterInstallationID: cursor, limit: limit))
            var chunk = AudienceChunk(cursor: page.last?.installationID ?? cursor, finished: page.count < limit)
            var tagsByUser: [String: Set<String>] = [:]
            for installation in page {
                var tags = Set<String>()
                if let userID = installation.userID {
                    if let cached = tagsByUser[userID] {
                        tags = cached
                    } else {
                        tags = Set(try store.tags(appID: appID, userID: userID))
                        tagsByUser[userID] = tags
                    }
                }
                // Matched by its user's tags: at send time it must still belong to that user.
                if expression.matches(tags) {
                    chunk.members.append(Member(installation: installation, targetUserID: installation.userID))
                }
            }
            return chunk
        case .audience(let expression):
            // Filtered in the store: only members come back, a bounded page at a time.
            let page = try store.installations(
                appID: appID, audience: expression, afterInstallationID: cursor, limit: limit, now: now)
            // Matched by its user (a tag or user_id): at send time it must still belong to that user.
            let throughUser = expression.involvesUser
            return AudienceChunk(
                members: page.map { Member(installation: $0, targetUserID: throughUser ? $0.userID : nil) },
                cursor: page.last?.installationID ?? cursor, finished: page.count < limit)
        case .all:
            let page = try store.installations(
                appID: appID, query: InstallationQuery(afterInstallationID: cursor, limit: limit))
            return AudienceChunk(
                members: page.map { Member(installation: $0, targetUserID: nil) },
                cursor: page.last?.installationID ?? cursor, finished: page.count < limit)
        }
    }
}
