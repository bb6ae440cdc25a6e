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
        // A typed, lenient decode: no failed attempts on the happy path (decoding through `JSONValue`
        // tries each JSON type in turn and was measured ~100× slower for a 500-receipt answer).
        guard let list = try? JSONDecoder().decode(ReceiptList.self, from: Data(body)) else { return nil }
        self.init()

        enum Verdict {
            case stored(duplicate: Bool)
            case rejected(reason: String)
        }
        let inBatch = Set(batch.map(\.eventID))
        var verdicts: [UUID: Verdict] = [:]
        for receipt in list.receipts {
            guard let rawID = receipt.eventID, let id = UUID(uuidString: rawID), inBatch.contains(id) else {
                ignoredReceipts += 1
                continue
            }
            switch receipt.status {
            case "accepted"?:
                verdicts[id] = .stored(duplicate: false)
            case "duplicate"?:
                if case .stored? = verdicts[id] { continue }
                verdicts[id] = .stored(duplicate: true)
            case "rejected"?:
                if case .stored? = verdicts[id] { continue }
                verdicts[id] = .rejected(reason: "rejected:\(receipt.errorCode ?? "unspecified")")
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

/// The receipt list as read off the wire: entries of the wrong shape decode as empty rather than fail.
private struct ReceiptList: Decodable {
    var receipts: [Entry]

    struct Entry: Decodable {
        var eventID: String?
        var status: String?
        var errorCode: String?

        private enum Key: String, CodingKey {
            case eventID = "event_id"
            case status
            case error
            case code
        }

        init(from decoder: any Decoder) {
            guard let container = try? decoder.container(keyedBy: Key.self) else { return }
            eventID = try? container.decodeIfPresent(String.self, forKey: .eventID)
            status = try? container.decodeIfPresent(String.self, forKey: .status)
            let error = try? container.nestedContainer(keyedBy: Key.self, forKey: .error)
            errorCode = try? error?.decodeIfPresent(String.self, forKey: .code)
        }
    }
}
