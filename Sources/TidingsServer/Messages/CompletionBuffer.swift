import TidingsStore

/// Outcomes a fan-out worker has not written yet, in the order they arrived.
struct CompletionBuffer {
    typealias Entry = (completion: DeliveryCompletion, delivery: MessageDelivery)

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ delivery: MessageDelivery, _ result: DeliveryResult) {
        entries.append((DeliveryCompletion(delivery, result: result), delivery))
    }

    /// Everything waiting, leaving the buffer empty.
    mutating func take() -> [Entry] {
        defer { entries = [] }
        return entries
    }
}
