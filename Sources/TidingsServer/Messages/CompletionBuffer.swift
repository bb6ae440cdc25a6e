import TidingsStore

/// Outcomes a fan-out worker has not written yet, in the order they arrived.
struct CompletionBuffer {
    private(set) var entries: [(completion: DeliveryCompletion, delivery: MessageDelivery)] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ delivery: MessageDelivery, _ result: DeliveryResult) {
        entries.append((DeliveryCompletion(delivery, result: result), delivery))
    }

    /// Everything waiting, leaving the buffer empty.
    mutating func take() -> [(completion: DeliveryCompletion, delivery: MessageDelivery)] {
        defer { entries = [] }
        return entries
    }
}
