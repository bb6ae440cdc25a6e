import Foundation

/// Batches the writes of concurrent callers in one process into one transaction.
///
/// Each caller adds its work to a pending list. Whoever finds no commit running takes the whole list and
/// commits it; the others wait for that commit and return its result for their part. A caller returns
/// only after the transaction holding its work has committed (or failed, with that failure).
final class GroupCommitter<Work, Output>: @unchecked Sendable {
    // @unchecked: every mutable property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var pending: [(ticket: UInt64, work: Work)] = []
    private var results: [UInt64: Result<Output, any Error>] = [:]
    private var nextTicket: UInt64 = 0
    private var committing = false

    /// Commits `work` together with whatever other callers submitted meanwhile.
    ///
    /// - Parameter commit: Commits a list of works in one transaction and returns one output per work,
    ///   in the same order. Called on one caller's thread at a time.
    func submit(_ work: Work, commit: ([Work]) throws -> [Output]) throws -> Output {
        condition.lock()
        let ticket = nextTicket
        nextTicket &+= 1
        pending.append((ticket, work))
        while results[ticket] == nil {
            if committing {
                condition.wait()
                continue
            }
            committing = true
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()
            let outcome = Result { try commit(batch.map(\.work)) }
            condition.lock()
            switch outcome {
            case .success(let outputs):
                for (entry, output) in zip(batch, outputs) { results[entry.ticket] = .success(output) }
            case .failure(let error):
                for entry in batch { results[entry.ticket] = .failure(error) }
            }
            committing = false
            condition.broadcast()
        }
        let result = results.removeValue(forKey: ticket)!
        condition.unlock()
        return try result.get()
    }
}
