import Foundation

extension SQLiteDatabase {
    /// Runs `body` in a write transaction shared with the writes other threads are asking for at the same
    /// moment (group commit), and returns once that transaction has committed.
    ///
    /// The first caller to find no commit under way leads: it takes every write waiting, runs each inside
    /// its own savepoint, and commits them together, so a busy server pays for one commit (and one write
    /// of each page the writes share) instead of one per request. A write that throws is rolled back to its
    /// savepoint alone and its caller gets the error; the others still commit. When the commit itself
    /// fails, every caller of the group gets that error and nothing of the group is applied.
    ///
    /// Writes run in arrival order, so a later one sees what an earlier one wrote. `body` must not use
    /// this database again (its connection is already locked by the group).
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
            // `submit` returns only after the write ran (or its group failed, handled above).
            return try outcome!.get()
        }
    }

    /// Runs one group in a transaction: each write in a savepoint unless it is alone.
    /// - Returns: the error that kept the group from committing, nil when it committed.
    func commitGroup(_ writes: [GroupedWrite]) -> (any Error)? {
        read { connection in
            do {
                try connection.run("BEGIN IMMEDIATE")
                if writes.count == 1 {
                    guard writes[0].run(connection) else {
                        _ = try? connection.run("ROLLBACK")
                        return nil
                    }
                } else {
                    for write in writes {
                        try connection.run("SAVEPOINT group_write")
                        if !write.run(connection) { try connection.run("ROLLBACK TO group_write") }
                        try connection.run("RELEASE group_write")
                    }
                }
                try connection.run("COMMIT")
                return nil
            } catch {
                _ = try? connection.run("ROLLBACK")
                return error
            }
        }
    }
}

/// One caller's write waiting for its group.
final class GroupedWrite: @unchecked Sendable {
    // @unchecked: `run` is called by the group's leader while its submitter waits on the queue's
    // condition; `done` and `groupError` are touched only under that condition's lock.
    /// Runs the write; false when it threw (its error is kept by the caller).
    let run: (SQLiteConnection) -> Bool
    var done = false
    var groupError: (any Error)?

    init(_ run: @escaping (SQLiteConnection) -> Bool) {
        self.run = run
    }
}

/// The writes waiting for a group, and whether a leader is committing one now.
final class GroupCommitQueue: @unchecked Sendable {
    // @unchecked: `pending` and `leading` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var pending: [GroupedWrite] = []
    private var leading = false

    /// Waits until `write` ran in a committed group (nil) or its group failed (the error).
    func submit(_ write: GroupedWrite, database: SQLiteDatabase) -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        pending.append(write)
        while !write.done {
            if leading {
                condition.wait()
                continue
            }
            leading = true
            let group = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()
            let error = database.commitGroup(group)
            condition.lock()
            for member in group {
                member.done = true
                member.groupError = error
            }
            leading = false
            condition.broadcast()
        }
        return write.groupError
    }
}
