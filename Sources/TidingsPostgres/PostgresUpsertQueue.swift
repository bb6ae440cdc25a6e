import Foundation
import TidingsModel
import TidingsStore

/// Installation upserts asked for by several threads at the same moment, written together by one of them
/// (group commit).
///
/// A caller that finds fewer than `maximumGroups` groups being written leads: it takes every upsert waiting
/// and hands them to `commit`, which writes them in one transaction, so a busy server pays for one commit
/// (one WAL flush) and two round trips per group instead of per request. While groups commit, the next
/// requests queue up and form the next group. Each caller returns once its own outcome is set.
///
/// Wake-ups are targeted: a leader that finishes wakes the members of its group and hands the lead to one
/// waiting caller, instead of broadcasting to every thread waiting (with dozens of network threads, the
/// futex traffic of broadcasts was a tenth of the server's CPU).
final class PostgresUpsertQueue: @unchecked Sendable {
    // @unchecked: `pending`, `leading` and each member's `done` and `leadHandedOver` are touched only with
    // `lock` held; a member's outcome is written by its leader before `done` is set, and read by its caller
    // after its semaphore says so.
    private let lock = NSLock()
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
        /// The caller's decision; dropped (by the leader, with the lock held) when `done` is set, because
        /// the caller lends it only for the duration of its call.
        fileprivate(set) var prepare: ((Installation?) throws -> InstallationUpdate)?
        /// Set by the group's writer: what the caller returns or throws.
        var outcome: Result<(installation: Installation, created: Bool), any Error>?
        fileprivate var done = false
        /// Set when a finishing leader chose this caller to lead next; cleared when it takes the lead.
        fileprivate var leadHandedOver = false
        /// Signalled once when `done` is set, and once for each lead handed over.
        fileprivate let wake = DispatchSemaphore(value: 0)

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
        var leads = lock.withLock {
            pending.append(member)
            guard leading < maximumGroups else { return false }
            leading += 1
            return true
        }
        while true {
            if !leads {
                member.wake.wait()
                let next = lock.withLock { () -> (leads: Bool, done: Bool) in
                    // A lead handed over is taken even when the member's own group is done meanwhile: the
                    // count of leaders includes it.
                    if member.leadHandedOver {
                        member.leadHandedOver = false
                        return (true, member.done)
                    }
                    return (false, member.done)
                }
                if !next.leads {
                    if next.done { return }
                    continue
                }
            }
            leads = false
            // Let the threads waiting for a core run first: on a busy server they are parsing the next
            // requests, and those that reach the store meanwhile join this group instead of waiting for the
            // next. With no thread waiting this returns at once.
            sched_yield()
            let group = lock.withLock {
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            if !group.isEmpty { commit(group) }
            let wakes = lock.withLock { () -> [DispatchSemaphore] in
                for written in group {
                    written.prepare = nil
                    written.done = true
                }
                var wakes = group.filter { $0 !== member }.map(\.wake)
                if let successor = pending.first(where: { !$0.leadHandedOver }) {
                    successor.leadHandedOver = true
                    wakes.append(successor.wake)
                } else {
                    leading -= 1
                }
                return wakes
            }
            for wake in wakes { wake.signal() }
            if lock.withLock({ member.done }) { return }
        }
    }
}
