import Foundation

/// How the receipts of one response settle the events of one batch.
///
/// Receipts are matched by `event_id`, never by position. Receipts for ids that are not in the batch are
/// ignored; several receipts for one id are harmless (any `accepted`/`duplicate` wins over `rejected`,
/// because deleting an event the server holds is always right). Receipts with a status this SDK does
/// not know leave their event unsettled, so it is sent again.
public struct ReceiptSettlement: Sendable, Hashable {
    /// Events the server stored now.
    public var accepted: [UUID] = []
    /// Events the server already had.
    public var duplicates: [UUID] = []
    /// Events the server will never take, grouped by the reason they are counted under.
    public var rejected: [String: [UUID]] = [:]
    /// Events without a usable receipt: they stay queued.
    public var missing: [UUID] = []
    /// Receipts naming events that were not in the batch.
    public var ignoredReceipts = 0

    public init() {}

    /// How many events were rejected.
    public var rejectedCount: Int { rejected.values.reduce(0) { $0 + $1.count } }

    /// Reads `body` as `{"receipts":[...]}` against the events of `batch`.
    /// - Returns: nil when the body is not a receipt list at all.
    public init?(body: [UInt8], batch: [QueuedEvent]) {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
            let receipts = json["receipts"]?.arrayValue
        else { return nil }
        self.init()

        enum Verdict {
            case stored(duplicate: Bool)
            case rejected(reason: String)
        }
        let inBatch = Set(batch.map(\.eventID))
        var verdicts: [UUID: Verdict] = [:]
        for receipt in receipts {
            guard let rawID = receipt["event_id"]?.stringValue, let id = UUID(uuidString: rawID),
                inBatch.contains(id)
            else {
                ignoredReceipts += 1
                continue
            }
            switch receipt["status"]?.stringValue {
            case "accepted"?:
                verdicts[id] = .stored(duplicate: false)
            case "duplicate"?:
                if case .stored? = verdicts[id] { continue }
                verdicts[id] = .stored(duplicate: true)
            case "rejected"?:
                if case .stored? = verdicts[id] { continue }
                let code = receipt["error"]?["code"]?.stringValue ?? "unspecified"
                verdicts[id] = .rejected(reason: "rejected:\(code)")
            default:
                continue
            }
        }
        for event in batch {
            switch verdicts[event.eventID] {
            case .stored(duplicate: false)?: accepted.append(event.eventID)
            case .stored(duplicate: true)?: duplicates.append(event.eventID)
            case .rejected(let reason)?: rejected[reason, default: []].append(event.eventID)
            case nil: missing.append(event.eventID)
            }
        }
    }
}
