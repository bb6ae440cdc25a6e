/// What one call to ``SendControlStore/claimDeliveries(worker:claim:now:leaseUntil:)`` may take.
public struct DeliveryClaim: Sendable, Hashable {
    /// Rows claimed at most, over every message.
    public var limit: Int
    /// Only deliveries of transactional messages (a worker busy with a campaign looks for these often).
    public var onlyTransactional: Bool
    /// Messages not to claim from now (the worker already holds as many of theirs as their rate can send soon).
    public var excludedMessageIDs: Set<String>
    /// A message paced by a rate (its own, or its app's ceiling unless it is transactional) is claimed at most
    /// this many seconds of its rate at a time, so claimed rows go out well within their lease.
    public var rateHorizonSeconds: Int

    public init(
        limit: Int, onlyTransactional: Bool = false, excludedMessageIDs: Set<String> = [], rateHorizonSeconds: Int = 2
    ) {
        self.limit = limit
        self.onlyTransactional = onlyTransactional
        self.excludedMessageIDs = excludedMessageIDs
        self.rateHorizonSeconds = rateHorizonSeconds
    }

    /// How many of a message's `due` rows may be claimed, given its rate and its app's ceiling.
    public func available(due: Int, transactional: Bool, messageRate: Int?, appRate: Int?) -> Int {
        let rates = [messageRate, transactional ? nil : appRate].compactMap { $0 }
        guard let rate = rates.min() else { return due }
        return min(due, max(1, rate * max(1, rateHorizonSeconds)))
    }

    /// How many of each message's due rows to claim: transactional messages first, each what it has, then
    /// equal shares of the rest (rounded up), what a message cannot use going to the next ones.
    /// - Parameter due: each active message with due rows, oldest first: its id, whether it is transactional,
    ///   and how many due rows it has (at most ``limit``).
    public func allocate(_ due: [(id: String, transactional: Bool, available: Int)]) -> [(id: String, count: Int)] {
        var remaining = max(0, limit)
        var counts = [Int](repeating: 0, count: due.count)
        for (index, message) in due.enumerated() where message.transactional {
            counts[index] = min(message.available, remaining)
            remaining -= counts[index]
        }
        var open = due.indices.filter { !due[$0].transactional && due[$0].available > 0 }
        while remaining > 0 && !open.isEmpty {
            let share = (remaining + open.count - 1) / open.count
            for index in open {
                let take = min(share, due[index].available - counts[index], remaining)
                counts[index] += take
                remaining -= take
            }
            open = open.filter { counts[$0] < due[$0].available }
        }
        return due.indices.compactMap { counts[$0] > 0 ? (due[$0].id, counts[$0]) : nil }
    }
}
