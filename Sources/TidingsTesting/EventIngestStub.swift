import Foundation
import Tidings

/// A stand-in for `tidingsd`'s `POST /v1/events`: parses batches, de-duplicates on `event_id` and
/// answers receipts, so tests can check that nothing is lost or counted twice.
public final class EventIngestStub: Sendable {
    private struct State {
        var stored: [UUID] = []
        var storedSet: Set<UUID> = []
        var rejectIDs: [UUID: WireError] = [:]
        var omitIDs: Set<UUID> = []
        var batches: [[UUID]] = []
    }

    private let state = LockedBox(State())

    public init() {}

    /// Answers `rejected` with `error` for this event from now on.
    public func reject(_ eventID: UUID, error: WireError = WireError(code: "invalid_event", message: "rejected")) {
        state.withLock { $0.rejectIDs[eventID] = error }
    }

    /// Stores this event but leaves it out of the receipts, as a buggy or truncated answer would.
    public func omitReceipt(for eventID: UUID) {
        state.withLock { _ = $0.omitIDs.insert(eventID) }
    }

    /// Stops omitting receipts.
    public func stopOmittingReceipts() {
        state.withLock { $0.omitIDs = [] }
    }

    /// Every event id stored, once each, in the order first stored.
    public var storedIDs: [UUID] { state.withLock { $0.stored } }
    /// The ids of each batch received, in order.
    public var batches: [[UUID]] { state.withLock { $0.batches } }

    /// Handles one request: 400 for a body that is not `{"events":[...]}`, otherwise 200 with receipts.
    public func handle(_ request: TransportRequest) -> TransportResponse {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)),
            let events = json["events"]?.arrayValue
        else {
            return Self.json(status: 400, .object(["error": ["code": "invalid_json", "message": "not a batch"]]))
        }
        let receipts = state.withLock { state -> [JSONValue] in
            var receipts: [JSONValue] = []
            var batch: [UUID] = []
            for event in events {
                guard let raw = event["event_id"]?.stringValue, let id = UUID(uuidString: raw) else {
                    receipts.append(["event_id": nil, "status": "rejected"])
                    continue
                }
                batch.append(id)
                let status: JSONValue
                var receipt: [String: JSONValue] = ["event_id": .string(raw)]
                if let error = state.rejectIDs[id] {
                    status = "rejected"
                    receipt["error"] = ["code": .string(error.code), "message": .string(error.message)]
                } else if state.storedSet.contains(id) {
                    status = "duplicate"
                } else {
                    state.storedSet.insert(id)
                    state.stored.append(id)
                    status = "accepted"
                }
                receipt["status"] = status
                if !state.omitIDs.contains(id) { receipts.append(.object(receipt)) }
            }
            state.batches.append(batch)
            return receipts
        }
        return Self.json(status: 200, .object(["receipts": .array(receipts)]))
    }

    private static func json(status: Int, _ value: JSONValue) -> TransportResponse {
        let body = (try? JSONEncoder().encode(value)).map(Array.init) ?? []
        return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
