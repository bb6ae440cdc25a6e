import Foundation
import TidingsModel
import TidingsStore

/// Installation upserts asked for by several threads at the same moment, written together by one of them
/// (group commit).
///
/// The first caller to find no group being written leads: it takes every upsert waiting and hands them to
/// `commit`, which writes them in one transaction, so a busy server pays for one commit (one WAL flush) and
/// two round trips per group instead of per request. While a group commits, the next requests queue up and
/// form the next group. Each caller returns once its own outcome is set.
final class PostgresUpsertQueue: @unchecked Sendable {
    // @unchecked: `pending` and `leading` are touched only with `condition` locked; a member's fields are
    // written by the leader before `done` is set under the lock, and read by its caller after.
    private let condition = NSCondition()
    private var pending: [Member] = []
    private var leading = 0
    /// How many groups may be written at once, each by its own leader on its own connection.
    let maximumGroups: Int

    init(maximumGroups: Int) {
        self.maximumGroups = max(1, maximumGroups)
    }

    /// One caller's upsert waiting for its group.
    final class Member: @unchecked Sendable {
        // @unchecked: see the queue.
        let appID: String
        let installationID: String
        let now: Int64
        let prepare: (Installation?) throws -> InstallationUpdate
        /// Set by the group's writer: what the caller returns or throws.
        var outcome: Result<(installation: Installation, created: Bool), any Error>?
        fileprivate var done = false

        init(
            appID: String, installationID: String, now: Int64,
            prepare: @escaping (Installation?) throws -> InstallationUpdate
        ) {
            self.appID = appID
            self.installationID = installationID
            self.now = now
            self.prepare = prepare
        }
    }

    /// Waits until `member`'s group has been written by `commit` (run by whichever caller leads), which
    /// sets every member's outcome.
    func submit(_ member: Member, commit: ([Member]) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        pending.append(member)
        while !member.done {
            // Another leader may have taken this member already: then wait for its group.
            if leading >= maximumGroups || pending.isEmpty {
                condition.wait()
                continue
            }
            leading += 1
            condition.unlock()
            // Let the threads waiting for a core run first: on a busy server they are parsing the next
            // requests, and those that reach the store meanwhile join this group instead of waiting for the
            // next. With no thread waiting this returns at once.
            sched_yield()
            condition.lock()
            let group = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()
            commit(group)
            condition.lock()
            for written in group { written.done = true }
            leading -= 1
            condition.broadcast()
        }
    }
}
