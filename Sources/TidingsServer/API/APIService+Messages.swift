import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `POST /v1/messages`: validates, builds one payload per (variant, language), stores the message with its
    /// plan and answers 202 at once, whatever the audience's size.
    ///
    /// The audience is resolved by a ``CampaignResolver`` in bounded chunks that stream into the delivery
    /// queue. When resolution is due now, the first chunk is resolved here (so a small audience is complete in
    /// the answer); the rest continues in the background. With `"dry_run": true` it answers 200 with what the
    /// send would do (``dryRunMessage(_:)``) and stores nothing.
    func postMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let accepted = try acceptMessage(request, appID: caller.appID)
        if accepted.request.dryRun { return try await dryRunMessage(accepted) }
        let record = accepted.record
        let messageID = record.id
        let date = Date(millisecondsSince1970: record.createdAt)
        let resolveAt = record.resolveAt ?? record.createdAt
        let dueNow = resolveAt <= record.createdAt
        let resolver = CampaignResolver(
            store: store, clock: clock, logger: logger,
            id: (configuration.instanceID.map { "\($0)/" } ?? "") + "api-" + UUID().lowercasedString)
        let lease = date.millisecondsSince1970 + Int64(resolver.configuration.lease.seconds * 1000)
        try storeCall {
            try store.createCampaign(
                record, resolver: dueNow ? resolver.id : nil, leaseUntil: dueNow ? lease : nil,
                splitDecision: accepted.request.splitDecision(messageID: messageID, appID: caller.appID, now: date))
        }
        if dueNow {
            // One bounded chunk here; whatever remains is the background resolvers'.
            let step = try resolver.resolveChunk(record, cursor: nil, resolver: resolver.id)
            if step?.finished != true { try store.releaseResolution(messageID: messageID, resolver: resolver.id) }
            messageAccepted.withLock { $0 }?()
        }
        let counts = try store.messageCounts(messageID: messageID)
        let state = try store.message(appID: caller.appID, messageID: messageID)?.state ?? record.state
        fanoutCounters.messagesAccepted?.increment()
        fanoutCounters.skipped?.increment(by: counts.skipped)
        logger.info(
            "message accepted",
            metadata: ["message_id": messageID, "app_id": caller.appID, "state": state.rawValue])
        var answer: [String: JSONValue] = [
            "message_id": .string(messageID), "state": .string(state.rawValue),
            "targets": .integer(Int64(counts.targets)), "queued": .integer(Int64(counts.queued + counts.inFlight)),
            "skipped": .object(counts.skippedByReason.mapValues { .integer(Int64($0)) }),
        ]
        if !dueNow { answer["resolve_at"] = .integer(resolveAt) }
        return json(.object(answer), status: 202)
    }

    /// Validates a `POST /v1/messages` body and builds its payloads and message row, storing nothing: the same
    /// checks and errors for a real send and a dry run.
    func acceptMessage(_ request: HTTPRequest, appID: String) throws -> AcceptedMessage {
        guard provider != nil else {
            throw HTTPError(
                status: 503, code: "no_provider",
                message: "this server has no push provider configured (APNs credentials); it cannot send messages")
        }
        // Saved segments are expanded now: the message keeps the audience as it is when accepted.
        let body = try expandingSegments(
            inBody: jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes), appID: appID)
        do {
            return try storeCall {
                try MessageComposer(store: store, configuration: configuration).compose(
                    body, appID: appID, messageID: "msg_" + UUID().lowercasedString, now: clock.now)
            }
        } catch let error as MessageError {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
    }

    /// `GET /v1/messages`: the app's messages, newest first, optionally in one state; paged by `cursor`.
    func listMessages(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let limit = try pageLimit(request)
        var query = MessageListQuery(limit: limit + 1)
        if let stateName = request.queryValue("state") {
            guard let state = MessageRecord.State(rawValue: stateName) else {
                throw HTTPError(
                    status: 400, code: "invalid_parameter",
                    message:
                        "state must be one of \(MessageRecord.State.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.state = state
        }
        if let position = try position(request, kind: "m") {
            let parts = position.split(separator: "/", maxSplits: 1)
            guard parts.count == 2, let createdAt = Int64(parts[0]) else {
                throw HTTPError(
                    status: 400, code: "invalid_cursor", message: "cursor is not one this endpoint gave out")
            }
            query.after = (createdAt, String(parts[1]))
        }
        var messages = try store.messages(appID: caller.appID, query: query)
        var next: JSONValue = .null
        if messages.count > limit {
            messages.removeLast(messages.count - limit)
            let last = messages[messages.count - 1]
            next = .string(cursor(kind: "m", position: "\(last.createdAt)/\(last.id)"))
        }
        return json(["messages": .array(messages.map(Self.messageSummary)), "next_cursor": next])
    }

    /// `GET /v1/messages/{message_id}`: state, schedule, delivery counts and the event funnel; for a local-time
    /// message, its due times and what waits at each.
    func getMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let messageID = try identifier(request, "message_id")
        guard let message = try store.message(appID: caller.appID, messageID: messageID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no message \(messageID)")
        }
        return json(try messageJSON(message))
    }

    /// `DELETE /v1/messages/{message_id}`: cancels what is not sent yet (scheduled, resolving or sending) and
    /// answers the counts. Every instance stops the message's pushes within a second (docs/campaigns.md); a push
    /// in flight counts as cancelled until the provider answers it, then as sent or failed.
    func cancelMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let messageID = try identifier(request, "message_id")
        guard let message = try store.cancelMessage(appID: caller.appID, messageID: messageID, now: now) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no message \(messageID)")
        }
        if message.state == .done {
            throw HTTPError(
                status: 409, code: "already_finished", message: "message \(messageID) was already sent to every target")
        }
        return json(try messageJSON(message))
    }

    /// What the listing shows of a message: no counts, which cost a read each.
    static func messageSummary(_ message: MessageRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "message_id": .string(message.id), "state": .string(message.state.rawValue),
            "kind": .string(message.kind.rawValue), "message_type": .string(message.messageType.rawValue),
            "created_at": .integer(message.createdAt),
        ]
        if let campaignID = message.campaignID { object["campaign_id"] = .string(campaignID) }
        if let rate = message.ratePerSecond { object["rate_per_second"] = .integer(Int64(rate)) }
        if let finishedAt = message.finishedAt { object["finished_at"] = .integer(finishedAt) }
        if message.state == .scheduled, let resolveAt = message.resolveAt { object["resolve_at"] = .integer(resolveAt) }
        if let plan = CampaignPlan.decode(message.plan) {
            object["schedule"] = plan.scheduleJSON
            if plan.hasVariants { object["variants"] = .array(plan.arms.compactMap { $0.id.map(JSONValue.string) }) }
            if let conversion = plan.conversion { object["conversion"] = conversion.json }
            if let followUp = plan.followUp { object["follow_up_of"] = .string(followUp.parentID) }
        }
        return .object(object)
    }

    static func countsJSON(_ counts: MessageCounts) -> JSONValue {
        func reasons(_ byReason: [String: Int]) -> JSONValue { .object(byReason.mapValues { .integer(Int64($0)) }) }
        return [
            "targets": .integer(Int64(counts.targets)), "queued": .integer(Int64(counts.queued)),
            "in_flight": .integer(Int64(counts.inFlight)), "sent": .integer(Int64(counts.sent)),
            "failed": .integer(Int64(counts.failed)), "skipped": .integer(Int64(counts.skipped)),
            "cancelled": .integer(Int64(counts.cancelled)),
            "failed_by_reason": reasons(counts.failedByReason), "skipped_by_reason": reasons(counts.skippedByReason),
        ]
    }

    private func messageJSON(_ message: MessageRecord) throws -> JSONValue {
        let counts = try store.messageCounts(messageID: message.id)
        guard case .object(var object) = Self.messageSummary(message) else { return .null }
        object["counts"] = Self.countsJSON(counts)
        object["funnel"] = try funnelJSON(message: message, counts: counts)
        if let winner = try winnerJSON(message) { object["winner"] = winner }
        if let plan = CampaignPlan.decode(message.plan), case .localTime(let time, _, _) = plan.schedule {
            object["local_schedule"] =
                LocalScheduleReport(time: time, countsByDue: try store.messageCountsByDueTime(messageID: message.id))
                .json
        }
        return .object(object)
    }

    /// Calls `body` for every installation of the app (of `userID` when given), a page at a time.
    func forEachInstallation(appID: String, userID: String?, _ body: (Installation) throws -> Void) throws {
        var after: String?
        while true {
            let page = try store.installations(
                appID: appID, query: InstallationQuery(userID: userID, afterInstallationID: after, limit: 1000))
            for installation in page { try body(installation) }
            guard page.count == 1000, let last = page.last else { return }
            after = last.installationID
        }
    }
}
