import Foundation
import TidingsModel

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

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
            groupCommit.submit(write, commit: commitMembers)
            if let error = write.groupError { throw error }
            // `submit` returns only after the write ran and committed, or failed alone (handled above).
            return try outcome!.get()
        }
    }

    /// The same write as ``groupWrite(_:)``, without waiting for it: `completion` gets its outcome once its group
    /// has committed, on the thread that wrote the group (this one when no group was being written, so an
    /// idle database adds no thread hop).
    ///
    /// For a caller that must not wait, such as a network thread with other connections to serve.
    public func groupWrite<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result,
        completion: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void
    ) {
        let outcome = LockedBox<Swift.Result<Result, any Error>?>(nil)
        let write = GroupedWrite { connection in
            let result = Swift.Result { try body(connection) }
            outcome.withLock { $0 = result }
            if case .failure = result { return false }
            return true
        }
        write.finished = { groupError in
            // The write has run by the time its group is finished; the fallback only keeps a caller from
            // waiting for ever should that ever not hold.
            let result = groupError.map { .failure($0) } ?? outcome.withLock { $0 }
            completion(result ?? .failure(SQLiteError(code: SQLITE_INTERNAL, message: "the write was not run")))
        }
        groupCommit.enqueue(write, commit: commitMembers)
    }

    /// Commits `group` and gives each write the error that kept its transaction from committing.
    private func commitMembers(_ group: [GroupedWrite]) {
        for (member, error) in zip(group, commitGroup(group)) { member.groupError = error }
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
final class GroupedWrite: GroupCommitMember, @unchecked Sendable {
    // @unchecked: `run` and `groupError` are used by the group's leader while the caller waits in
    // `GroupCommitter.submit`, which returns only after the leader is done with them.
    /// Runs the write; false when it threw (its error is kept by the caller). Dropped once the group is
    /// written: the caller lends it only for the duration of its call (`withoutActuallyEscaping`).
    var run: ((SQLiteConnection) -> Bool)?
    /// The error that kept the write's transaction from committing.
    var groupError: (any Error)?
    /// Hands the outcome on, for a write that nobody waits for; given the error that kept its transaction
    /// from committing.
    var finished: ((_ groupError: (any Error)?) -> Void)?

    init(_ run: @escaping (SQLiteConnection) -> Bool) {
        self.run = run
    }

    override func groupWritten() { run = nil }

    override func groupFinished() {
        let finished = self.finished
        self.finished = nil
        finished?(groupError)
    }
}
