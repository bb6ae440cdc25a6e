import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Saved segments: named audience expressions, counted live and named in any audience as `segment:NAME`
/// (docs/audiences.md). An expression is checked by parsing it with the app's other segments, so an unknown
/// name or a cycle is refused when the segment is saved.
extension APIService {
    /// The most segments one app may save.
    static let maximumSegments = 500

    func segmentRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/v1/segments") { try await self.createSegment($0) },
            HTTPRoute("GET", "/v1/segments") { try await self.listSegments($0) },
            HTTPRoute("GET", "/v1/segments/{segment_id}") { try await self.getSegment($0) },
            HTTPRoute("PUT", "/v1/segments/{segment_id}") { try await self.updateSegment($0) },
            HTTPRoute("DELETE", "/v1/segments/{segment_id}") { try await self.deleteSegment($0) },
            HTTPRoute("GET", "/v1/segments/{segment_id}/count") { try await self.countSegment($0) },
        ]
    }

    /// `POST /v1/segments`: `{"name", "expression"}` → 201 and the segment.
    func createSegment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let (name, expression) = try segmentBody(request)
        let existing = try store.segments(appID: caller.appID)
        guard existing.count < Self.maximumSegments else {
            throw HTTPError(
                status: 400, code: "too_many_segments",
                message: "the app has \(existing.count) segments; the limit is \(Self.maximumSegments)")
        }
        let segment = Segment(
            id: "seg_" + UUID().lowercasedString, name: name, expression: expression, createdAt: now, updatedAt: now)
        try checkSegment(segment, among: existing)
        try storeCall { try store.saveSegment(appID: caller.appID, segment) }
        return json(Self.segmentJSON(segment), status: 201)
    }

    /// `GET /v1/segments`: every segment of the app, by name.
    func listSegments(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        return json(["segments": .array(try store.segments(appID: caller.appID).map(Self.segmentJSON))])
    }

    func getSegment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        return json(Self.segmentJSON(try existingSegment(request, appID: caller.appID)))
    }

    /// `PUT /v1/segments/{segment_id}`: a new name and expression. A segment others name keeps its name.
    func updateSegment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        var segment = try existingSegment(request, appID: caller.appID)
        let (name, expression) = try segmentBody(request)
        let others = try store.segments(appID: caller.appID).filter { $0.id != segment.id }
        if name != segment.name {
            try refuseIfNamed(segment, by: others, doing: "rename")
            try refuseIfTriggering(segment, appID: caller.appID, doing: "rename")
        }
        segment.name = name
        segment.expression = expression
        segment.updatedAt = now
        try checkSegment(segment, among: others)
        try storeCall { try store.saveSegment(appID: caller.appID, segment) }
        return json(Self.segmentJSON(segment))
    }

    /// `DELETE /v1/segments/{segment_id}`: 204; 409 `segment_in_use` while another segment or a journey's
    /// trigger names it.
    func deleteSegment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let segment = try existingSegment(request, appID: caller.appID)
        try refuseIfNamed(segment, by: try store.segments(appID: caller.appID), doing: "delete")
        try refuseIfTriggering(segment, appID: caller.appID, doing: "delete")
        _ = try storeCall { try store.deleteSegment(appID: caller.appID, segmentID: segment.id) }
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/segments/{segment_id}/count`: `{"count": N}`, how many installations it selects now.
    func countSegment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let segment = try existingSegment(request, appID: caller.appID)
        let definitions = try segmentDefinitions(appID: caller.appID)
        let expression: AudienceExpression
        do {
            expression = try AudienceExpression.parse(segment.expression, segments: definitions)
        } catch {
            return json(Self.audienceErrorJSON(error), status: 400)
        }
        let count = try storeCall {
            try store.countInstallations(appID: caller.appID, audience: expression, now: now)
        }
        return json(["segment_id": .string(segment.id), "name": .string(segment.name), "count": .integer(Int64(count))])
    }

    /// The app's segments by name, what `segment:NAME` is expanded from.
    func segmentDefinitions(appID: String) throws -> [String: String] {
        JourneyCatalog.segmentDefinitions(try store.segments(appID: appID))
    }

    /// `text` with the segments it names expanded, as an expression that parses without them; `text` itself
    /// when it names none. What a message or journey keeps, so later edits of a segment do not change it.
    /// - Throws: 400 `invalid_audience` with the reason and column.
    func expandingSegments(inAudience text: String, appID: String) throws -> String {
        guard !AudienceExpression.segmentNames(in: text).isEmpty else { return text }
        do {
            return try AudienceExpression.parse(text, segments: segmentDefinitions(appID: appID)).description
        } catch let error as AudienceExpressionError {
            throw HTTPError(
                status: 400, code: "invalid_audience",
                message: "audience: \(error.message) (\(error.code.rawValue) at column \(error.column))")
        }
    }

    /// A `POST /v1/messages`-shaped body whose `audience` (or `target.audience`) has its segments expanded.
    func expandingSegments(inBody body: [String: JSONValue], appID: String) throws -> [String: JSONValue] {
        var body = body
        if let text = body["audience"]?.stringValue {
            body["audience"] = .string(try expandingSegments(inAudience: text, appID: appID))
        }
        if case .object(var target)? = body["target"], let text = target["audience"]?.stringValue {
            target["audience"] = .string(try expandingSegments(inAudience: text, appID: appID))
            body["target"] = .object(target)
        }
        return body
    }

    static func segmentJSON(_ segment: Segment) -> JSONValue {
        .object([
            "segment_id": .string(segment.id), "name": .string(segment.name),
            "expression": .string(segment.expression), "created_at": .integer(segment.createdAt),
            "updated_at": .integer(segment.updatedAt),
        ])
    }

    private func segmentBody(_ request: HTTPRequest) throws -> (name: String, expression: String) {
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["name", "expression"])
        guard let name = body["name"]?.stringValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "name: must be a string")
        }
        guard Self.isSegmentName(name) else {
            throw HTTPError(
                status: 400, code: "invalid_field",
                message:
                    "name: '\(name.prefix(80))' must be 1 to 64 characters of A-Z a-z 0-9 _ -, starting with a letter")
        }
        guard let expression = body["expression"]?.stringValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "expression: must be a string")
        }
        return (name, expression)
    }

    static func isSegmentName(_ name: String) -> Bool {
        let bytes = name.utf8
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = bytes.first, isLetter(first), bytes.count <= 64 else { return false }
        return bytes.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
    }

    /// Parses the segment's expression with `others` (and itself), refusing it as `invalid_audience`.
    private func checkSegment(_ segment: Segment, among others: [Segment]) throws {
        var definitions = Dictionary(others.map { ($0.name, $0.expression) }, uniquingKeysWith: { first, _ in first })
        definitions[segment.name] = segment.expression
        do {
            _ = try AudienceExpression.parse(segment.expression, segments: definitions)
        } catch {
            throw HTTPError(
                status: 400, code: "invalid_audience",
                message: "expression: \(error.message) (\(error.code.rawValue) at column \(error.column))")
        }
        if others.contains(where: { $0.name == segment.name }) {
            throw HTTPError(
                status: 409, code: "conflict", message: "name: there is already a segment named '\(segment.name)'")
        }
    }

    private func refuseIfNamed(_ segment: Segment, by others: [Segment], doing action: String) throws {
        let users = others.filter {
            $0.id != segment.id && AudienceExpression.segmentNames(in: $0.expression).contains(segment.name)
        }
        guard users.isEmpty else {
            throw HTTPError(
                status: 409, code: "segment_in_use",
                message:
                    "cannot \(action) segment '\(segment.name)': \(users.map { "'\($0.name)'" }.joined(separator: ", ")) name it; change them first"
            )
        }
    }

    /// A journey not archived whose trigger is joining the segment keeps it: its members are tracked by name.
    private func refuseIfTriggering(_ segment: Segment, appID: String, doing action: String) throws {
        let journeys = try store.journeys(appID: appID).filter {
            $0.state != .archived && $0.triggerKind == "segment" && $0.triggerKey == segment.name
        }
        guard journeys.isEmpty else {
            throw HTTPError(
                status: 409, code: "segment_in_use",
                message:
                    "cannot \(action) segment '\(segment.name)': journeys \(journeys.map { "'\($0.name)' (\($0.id))" }.joined(separator: ", ")) are triggered by joining it; archive them or change their trigger first"
            )
        }
    }

    private func existingSegment(_ request: HTTPRequest, appID: String) throws -> Segment {
        let id = try parameter(request, "segment_id")
        guard let segment = try store.segment(appID: appID, segmentID: id) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no segment \(id.prefix(80))")
        }
        return segment
    }
}
