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
        guard let batch = try? JSONDecoder().decode(Batch.self, from: Data(request.body)) else {
            let error = Receipt.ErrorBody(code: "invalid_json", message: "the body is not an event batch")
            return Self.json(status: 400, ["error": error])
        }
        let receipts = state.withLock { state -> [Receipt] in
            var receipts: [Receipt] = []
            var ids: [UUID] = []
            for event in batch.events {
                guard let raw = event.eventID, let id = UUID(uuidString: raw) else {
                    receipts.append(Receipt(eventID: nil, status: "rejected", error: nil))
                    continue
                }
                ids.append(id)
                var receipt = Receipt(eventID: raw, status: "accepted", error: nil)
                if let error = state.rejectIDs[id] {
                    receipt.status = "rejected"
                    receipt.error = Receipt.ErrorBody(code: error.code, message: error.message)
                } else if state.storedSet.contains(id) {
                    receipt.status = "duplicate"
                } else {
                    state.storedSet.insert(id)
                    state.stored.append(id)
                }
                if !state.omitIDs.contains(id) { receipts.append(receipt) }
            }
            state.batches.append(ids)
            return receipts
        }
        return Self.json(status: 200, ["receipts": receipts])
    }

    private static func json(status: Int, _ value: some Encodable) -> TransportResponse {
        let body = (try? JSONEncoder().encode(value)).map(Array.init) ?? []
        return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// Only what the stub needs from a batch; typed so large batches decode quickly.
    private struct Batch: Decodable {
        struct Event: Decodable {
            var eventID: String?

            private enum Key: String, CodingKey { case eventID = "event_id" }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                eventID = try? container.decodeIfPresent(String.self, forKey: .eventID)
            }
        }

        var events: [Event]
    }

    private struct Receipt: Encodable {
        struct ErrorBody: Encodable {
            var code: String
            var message: String
        }

        var eventID: String?
        var status: String
        var error: ErrorBody?

        private enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
            case status
            case error
        }
    }
}
