import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    func journeyRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/v1/journeys") { try await self.createJourney($0) },
            HTTPRoute("POST", "/v1/journeys:validate") { try await self.validateJourney($0) },
            HTTPRoute("GET", "/v1/journeys") { try await self.listJourneys($0) },
            HTTPRoute("GET", "/v1/journeys/{journey_id}") { try await self.getJourney($0) },
            HTTPRoute("PUT", "/v1/journeys/{journey_id}") { try await self.updateJourney($0) },
            HTTPRoute("POST", "/v1/journeys/{journey_id}/start") {
                try await self.moveJourney($0, to: .active, from: [.draft, .paused])
            },
            HTTPRoute("POST", "/v1/journeys/{journey_id}/pause") {
                try await self.moveJourney($0, to: .paused, from: [.active])
            },
            HTTPRoute("POST", "/v1/journeys/{journey_id}/archive") {
                try await self.moveJourney($0, to: .archived, from: [.draft, .active, .paused])
            },
            HTTPRoute("POST", "/v1/users/{user_id}/events") { try await self.postUserEvent($0) },
        ]
    }

    /// Reads and checks a definition: send steps' messages exactly as `POST /v1/messages` would, audience
    /// expressions as the audience routes do.
    func journeyDefinition(_ request: HTTPRequest, appID: String) throws -> Result<
        JourneyDefinition, JourneyDefinitionError
    > {
        let body = try jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes)
        let composer = MessageComposer(store: store, configuration: configuration)
        let date = clock.now
        let checkMessage: ([String: JSONValue]) -> [JourneyProblem] = { message in
            var probe = message
            // Checked as it will be sent: to one person, under the journey's campaign id.
            probe["target"] = .object(["user_ids": .array([.string("journey-validation")])])
            do {
                _ = try composer.compose(probe, appID: appID, messageID: "msg_journey_validation", now: date)
                return []
            } catch let error as MessageError {
                let prefix = error.field.map { "\($0): " } ?? ""
                let text =
                    error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
                return [JourneyProblem(path: error.field ?? "", message: text)]
            } catch {
                return [JourneyProblem(path: "", message: "\(error)")]
            }
        }
        // A branch may name saved segments; they are looked up when a run reaches it, so here they must exist.
        let segments = try segmentDefinitions(appID: appID)
        let checkAudience: (String) -> String? = { text in
            do throws(AudienceExpressionError) {
                _ = try AudienceExpression.parse(text, segments: segments)
                return nil
            } catch {
                return error.message
            }
        }
        do {
            return .success(
                try JourneyDefinition.parse(.object(body), checkMessage: checkMessage, checkAudience: checkAudience))
        } catch {
            return .failure(error)
        }
    }

    static func problemsJSON(_ error: JourneyDefinitionError) -> JSONValue {
        .array(error.problems.map { .object(["path": .string($0.path), "message": .string($0.message)]) })
    }

    /// The 400 answer to a definition with problems: the usual error envelope, with every problem and its path.
    func invalidJourneyResponse(_ error: JourneyDefinitionError) -> HTTPResponse {
        json(
            .object([
                "error": .object([
                    "code": .string("invalid_journey"), "message": .string(error.description),
                    "errors": Self.problemsJSON(error),
                ])
            ]), status: 400)
    }

    static func triggerColumns(_ trigger: JourneyTrigger) -> (kind: String, key: String) {
        switch trigger {
        case .event(let match): ("event", match.type)
        case .attribute(let key, _): ("attribute", key)
        case .schedule: ("schedule", "")
        case .segment(let name, _): ("segment", name)
        }
    }

    /// `POST /v1/journeys`: stores a journey in `draft` with its first version.
    func createJourney(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let definition: JourneyDefinition
        switch try journeyDefinition(request, appID: caller.appID) {
        case .success(let valid): definition = valid
        case .failure(let error): return invalidJourneyResponse(error)
        }
        let trigger = Self.triggerColumns(definition.trigger)
        let record = JourneyRecord(
            id: "jny_" + UUID().lowercasedString, appID: caller.appID, name: definition.name, state: .draft,
            version: 1, triggerKind: trigger.kind, triggerKey: trigger.key, createdAt: now, updatedAt: now)
        try storeCall { try store.createJourney(record, definition: JSONText.string(definition.json)) }
        return json(Self.journeyStateJSON(record), status: 201)
    }

    /// `POST /v1/journeys:validate`: every problem of a definition, storing nothing.
    func validateJourney(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        switch try journeyDefinition(request, appID: caller.appID) {
        case .success: return json(.object(["valid": .bool(true), "errors": .array([])]))
        case .failure(let error): return json(.object(["valid": .bool(false), "errors": Self.problemsJSON(error)]))
        }
    }

    /// `PUT /v1/journeys/{journey_id}`: a new version; people in the journey finish the one they entered.
    func updateJourney(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let journeyID = try identifier(request, "journey_id")
        guard try storeCall({ try store.journey(appID: caller.appID, id: journeyID) }) != nil else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no journey \(journeyID)")
        }
        let definition: JourneyDefinition
        switch try journeyDefinition(request, appID: caller.appID) {
        case .success(let valid): definition = valid
        case .failure(let error): return invalidJourneyResponse(error)
        }
        let trigger = Self.triggerColumns(definition.trigger)
        guard
            let journey = try storeCall({
                try store.addJourneyVersion(
                    appID: caller.appID, journeyID: journeyID, name: definition.name,
                    definition: JSONText.string(definition.json), triggerKind: trigger.kind, triggerKey: trigger.key,
                    now: now)
            })
        else { throw HTTPError(status: 404, code: "not_found", message: "there is no journey \(journeyID)") }
        journeyCatalog.invalidate(appID: caller.appID)
        return json(Self.journeyStateJSON(journey))
    }

    func moveJourney(_ request: HTTPRequest, to state: JourneyRecord.State, from: Set<JourneyRecord.State>)
        async throws -> HTTPResponse
    {
        let caller = try authenticate(request, .serverKey)
        let journeyID = try identifier(request, "journey_id")
        let moved: JourneyRecord?
        do {
            moved = try store.setJourneyState(
                appID: caller.appID, journeyID: journeyID, to: state, from: from, now: now)
        } catch let error as StoreError where error.code == .conflict {
            throw HTTPError(status: 409, code: "invalid_state", message: error.message)
        }
        guard let moved else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no journey \(journeyID)")
        }
        journeyCatalog.invalidate(appID: caller.appID)
        return json(Self.journeyStateJSON(moved))
    }

    static func journeyStateJSON(_ journey: JourneyRecord) -> JSONValue {
        .object([
            "journey_id": .string(journey.id), "version": .integer(Int64(journey.version)),
            "state": .string(journey.state.rawValue),
        ])
    }

    /// `GET /v1/journeys`.
    func listJourneys(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let journeys = try storeCall { try store.journeys(appID: caller.appID) }
        return json(.object(["journeys": .array(try journeys.map { try journeySummary($0) })]))
    }

    /// The journey's row with its entry and ending numbers.
    /// - Parameters: counts, inProgress: the journey's numbers when the caller has read them already.
    func journeySummary(
        _ journey: JourneyRecord, counts given: [JourneyCount]? = nil, inProgress known: [String: Int]? = nil
    )
        throws -> JSONValue
    {
        let counts = try given ?? storeCall { try store.journeyCounts(journeyID: journey.id) }
        let inProgress = try known ?? storeCall { try store.journeyRunsInProgress(journeyID: journey.id) }
        var exited: [String: Int64] = [:]
        var completed: Int64 = 0
        for count in counts where count.metric.hasPrefix("exited:") {
            let reason = String(count.metric.dropFirst(7))
            if reason == "completed" {
                completed += Int64(count.count)
            } else {
                exited[reason, default: 0] += Int64(count.count)
            }
        }
        let entry = counts.filter { $0.stepID.isEmpty }
        func entries(_ metric: String) -> JSONValue {
            .integer(Int64(entry.first { $0.metric == metric }?.count ?? 0))
        }
        let definition = try journeyCatalog.definition(journeyID: journey.id, version: journey.version)
        return .object([
            "journey_id": .string(journey.id), "name": .string(journey.name), "state": .string(journey.state.rawValue),
            "version": .integer(Int64(journey.version)), "created_at": .integer(journey.createdAt),
            "updated_at": .integer(journey.updatedAt), "trigger": definition?.trigger.json ?? .null,
            "entered": entries("entered"), "already_in": entries("already_in"), "entry_rule": entries("entry_rule"),
            "active": .integer(Int64(inProgress.values.reduce(0, +))), "completed": .integer(completed),
            "exited": .object(exited.mapValues { .integer($0) }),
        ])
    }

    /// `GET /v1/journeys/{journey_id}`: the journey, its definition, versions and each step's numbers.
    func getJourney(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let journeyID = try identifier(request, "journey_id")
        guard let journey = try storeCall({ try store.journey(appID: caller.appID, id: journeyID) }) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no journey \(journeyID)")
        }
        let counts = try storeCall { try store.journeyCounts(journeyID: journeyID) }
        let inProgress = try storeCall { try store.journeyRunsInProgress(journeyID: journeyID) }
        let versions = try storeCall { try store.journeyVersions(journeyID: journeyID) }
        var object = try journeySummary(journey, counts: counts, inProgress: inProgress).objectValue ?? [:]
        let definition = try journeyCatalog.definition(journeyID: journeyID, version: journey.version)
        object["definition"] = definition?.json ?? .null
        object["versions"] = .array(
            versions.map { .object(["version": .integer(Int64($0.version)), "created_at": .integer($0.createdAt)]) })
        // Steps of every version, current order first: a step removed in a later version keeps its numbers.
        var stepIDs = definition?.steps.map(\.id) ?? []
        for count in counts where !count.stepID.isEmpty && !stepIDs.contains(count.stepID) {
            stepIDs.append(count.stepID)
        }
        // Each send step's split test, of the latest version that ran one.
        var tests: [String: JourneyStepTestRecord] = [:]
        for test in try storeCall({ try store.journeyStepTests(appID: caller.appID, journeyID: journeyID) }) {
            tests[test.stepID] = test
        }
        object["steps"] = .array(
            try stepIDs.map { stepID in
                var step = try journeyStepJSON(
                    appID: caller.appID, journeyID: journeyID, stepID: stepID, step: definition?.step(stepID),
                    counts: counts.filter { $0.stepID == stepID }, inProgress: inProgress[stepID] ?? 0)
                if let test = tests[stepID], case .object(var fields) = step {
                    fields["winner"] = try journeyStepTestJSON(test)
                    step = .object(fields)
                }
                return step
            })
        return json(.object(object))
    }

    func journeyStepJSON(
        appID: String, journeyID: String, stepID: String, step: JourneyStep?, counts: [JourneyCount], inProgress: Int
    ) throws -> JSONValue {
        func count(_ metric: String) -> Int64 { Int64(counts.first { $0.metric == metric }?.count ?? 0) }
        var exited: [String: JSONValue] = [:]
        for entry in counts where entry.metric.hasPrefix("exited:") {
            exited[String(entry.metric.dropFirst(7))] = .integer(Int64(entry.count))
        }
        var object: [String: JSONValue] = [
            "id": .string(stepID), "type": step.map { .string($0.typeName) } ?? .null,
            "entered": .integer(count("entered")),
            "waiting": .integer(Int64(inProgress)), "exited": .object(exited),
        ]
        if case .send? = step?.kind {
            let campaignID = JourneyStepTest.splitKey(journeyID: journeyID, stepID: stepID)
            let deliveries = try storeCall { try store.campaignCounts(appID: appID, campaignID: campaignID) }
            let funnel = try storeCall { try store.funnel(appID: appID, scope: .campaign(campaignID)) }
            object["sent"] = .integer(Int64(deliveries.sent))
            object["skipped"] = .integer(Int64(deliveries.skipped))
            object["failed"] = .integer(Int64(deliveries.failed) + count("failed"))
            object["delivered"] = .integer(Int64(funnel.installationsByStage[.delivered] ?? 0))
            object["opened"] = .integer(Int64(funnel.installationsByStage[.opened] ?? 0))
            object["converted"] = .integer(count("converted"))
        }
        return .object(object)
    }

    /// `POST /v1/users/{user_id}/events`: an event of the user reported by the app's backend (a purchase, a
    /// sign-up), stored like the SDK's and heard by the user's journeys.
    func postUserEvent(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let userID = try userParameter(request)
        let body = try jsonObject(request, maximumBytes: 64 * 1024)
        for key in body.keys.sorted()
        where !["type", "value", "attributes", "occurred_at", "event_id", "installation_id"].contains(key) {
            throw HTTPError(status: 400, code: "invalid_field", message: "\(key) is not a field of a user event")
        }
        guard let type = body["type"]?.stringValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "type: an event type is required")
        }
        var eventID = UUID.version7()
        if let given = body["event_id"], !given.isNull {
            guard let text = given.stringValue, let parsed = UUID(uuidString: text) else {
                throw HTTPError(status: 400, code: "invalid_field", message: "event_id: must be a UUID")
            }
            eventID = parsed
        }
        var attributes: [String: JSONValue]?
        if let given = body["attributes"], !given.isNull {
            guard let object = given.objectValue else {
                throw HTTPError(status: 400, code: "invalid_field", message: "attributes: must be an object")
            }
            attributes = object
        }
        let occurredAt = body["occurred_at"]?.integerValue ?? now
        // Not from a device: it names the backend as its installation unless the caller says which device it is.
        let event = TidingsEvent(
            eventID: eventID, type: EventType(type), occurredAt: occurredAt,
            installationID: body["installation_id"]?.stringValue ?? "server", platform: "server", userID: userID,
            value: body["value"]?.stringValue, attributes: attributes)
        do {
            try event.validate(now: now, limits: configuration.eventLimits)
        } catch {
            throw HTTPError(status: 400, code: error.code.rawValue, message: error.message)
        }
        let signalling = try journeyCatalog.journeys(appID: caller.appID).signalling
        let inserted = try storeCall {
            try store.insertEvents(appID: caller.appID, events: [event], receivedAt: now, signalling: signalling)
        }
        return json(
            .object([
                "event_id": .string(eventID.lowercasedString),
                "status": .string(inserted.first == true ? "accepted" : "duplicate"),
            ]), status: 202)
    }
}
