import Foundation

extension SQLiteDatabase {
    /// Runs `body` in a write transaction shared with the writes other threads are asking for at the same
    /// moment (group commit), and returns once that transaction has committed.
    ///
    /// The first caller to find no commit under way leads: it takes every write waiting and runs them one
    /// after the other in one transaction, so a busy server pays for one commit (and writes each page the
    /// writes share once) instead of one per request. Writes run in arrival order, so a later one sees
    /// what an earlier one wrote.
    ///
    /// Failures stay with their write: when a write throws, or the commit fails, the whole group is rolled
    /// back and each of its writes is run again alone, in its own transaction, so the others still commit
    /// and the failing one applies nothing and gets its error. Writes must therefore depend only on the
    /// database (they may run twice, the first run rolled back). `body` must not use this database again
    /// (its connection is already locked by the group).
    @discardableResult
    public func groupWrite<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            var outcome: Swift.Result<Result, any Error>?
            let write = GroupedWrite { connection in
                outcome = Swift.Result { try body(connection) }
                if case .failure = outcome { return false }
                return true
            }
            if let error = groupCommit.submit(write, database: self) { throw error }
            // `submit` returns only after the write ran and committed, or failed alone (handled above).
            return try outcome!.get()
        }
    }

    /// Commits `writes` together, or, when one of them or the commit fails, each alone.
    /// - Returns: for each write, the error that kept its transaction from committing (nil when it
    ///   committed, or when the write itself threw, which the write keeps).
    func commitGroup(_ writes: [GroupedWrite]) -> [(any Error)?] {
        read { connection in
            if writes.count > 1, (try? Self.commit(writes, on: connection)) == true {
                return Array(repeating: nil, count: writes.count)
            }
            return writes.map { write in
                do {
                    _ = try Self.commit([write], on: connection)
                    return nil
                } catch {
                    return error
                }
            }
        }
    }

    /// Runs `writes` in one transaction and commits it; rolls back and returns false when a write throws.
    /// - Throws: when the transaction cannot begin or commit (it is rolled back).
    private static func commit(_ writes: [GroupedWrite], on connection: SQLiteConnection) throws -> Bool {
        try connection.run("BEGIN IMMEDIATE")
        do {
            for write in writes where write.run?(connection) == false {
                _ = try? connection.run("ROLLBACK")
                return false
            }
            try connection.run("COMMIT")
            return true
        } catch {
            _ = try? connection.run("ROLLBACK")
            throw error
        }
    }
}

/// One caller's write waiting for its group.
final class GroupedWrite: @unchecked Sendable {
    // @unchecked: `run` is called by the group's leader while its submitter waits on `wake`; `run`, `done`,
    // `leadHandedOver` and `groupError` are written only under the queue's lock.
    /// Runs the write; false when it threw (its error is kept by the caller). Dropped when the write is
    /// done: the caller lends it only for the duration of its call (`withoutActuallyEscaping`).
    var run: ((SQLiteConnection) -> Bool)?
    var done = false
    var groupError: (any Error)?
    /// Set when a finishing leader chose this write's caller to lead next.
    var leadHandedOver = false
    /// Signalled once when `done` is set, and once when the lead is handed over.
    let wake = DispatchSemaphore(value: 0)

    init(_ run: @escaping (SQLiteConnection) -> Bool) {
        self.run = run
    }
}

/// The writes waiting for a group, and whether a leader is committing one now.
///
/// Wake-ups are targeted: a leader that finishes wakes the callers of its group and hands the lead to the
/// first caller waiting, instead of waking every waiting thread to find out which of them leads.
final class GroupCommitQueue: @unchecked Sendable {
    // @unchecked: `pending` and `leading` are touched only with `lock` held.
    private let lock = NSLock()
    private var pending: [GroupedWrite] = []
    private var leading = false

    /// Waits until `write` ran and committed, or failed: nil, or the error of its commit.
    func submit(_ write: GroupedWrite, database: SQLiteDatabase) -> (any Error)? {
        var leads = lock.withLock {
            pending.append(write)
            guard !leading else { return false }
            leading = true
            return true
        }
        while true {
            if !leads {
                write.wake.wait()
                let (handedOver, done, error) = lock.withLock { () -> (Bool, Bool, (any Error)?) in
                    defer { write.leadHandedOver = false }
                    return (write.leadHandedOver, write.done, write.groupError)
                }
                if done { return error }
                guard handedOver else { continue }
            }
            leads = false
            // Before taking the group, let the threads waiting for this core run: on a busy server they are
            // reading and parsing the next requests, and those that reach the store meanwhile join this group
            // instead of each paying for a transaction of its own. With no thread waiting for the core this
            // returns at once. On two cores, without it, groups were about one write each: a write commits in
            // less time than another thread takes to parse its request.
            sched_yield()
            let group = lock.withLock {
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            let errors = database.commitGroup(group)
            let wakes = lock.withLock { () -> [DispatchSemaphore] in
                for (member, error) in zip(group, errors) {
                    member.run = nil
                    member.done = true
                    member.groupError = error
                }
                var wakes = group.filter { $0 !== write }.map(\.wake)
                if let successor = pending.first {
                    successor.leadHandedOver = true
                    wakes.append(successor.wake)
                } else {
                    leading = false
                }
                return wakes
            }
            for wake in wakes { wake.signal() }
            return lock.withLock { write.groupError }
        }
    }
}
