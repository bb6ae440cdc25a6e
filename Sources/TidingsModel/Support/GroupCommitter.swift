import Foundation

/// A piece of work that a caller hands to a ``GroupCommitter``, with what the committer keeps of it while it
/// waits (a base class rather than a wrapper, so that a submission allocates nothing more).
open class GroupCommitMember: @unchecked Sendable {
    // @unchecked: the committer's fields are touched only under its lock; a subclass's own fields are used
    // by the group's leader while the caller waits in `submit`, which returns only after the leader is done.
    fileprivate var done = false
    /// Set when a finishing leader chose this caller to lead next; cleared when it takes the lead.
    fileprivate var leadHandedOver = false
    /// Signalled once when `done` is set, and once for each lead handed over.
    fileprivate let wake = DispatchSemaphore(value: 0)

    public init() {}

    /// Called under the committer's lock once the member's group is written, before its caller returns:
    /// drops whatever the caller lent only for the call (a closure made with `withoutActuallyEscaping`),
    /// since the group's leader may still hold the member for a moment.
    open func groupWritten() {}
}

/// Writes asked for by several threads at the same moment, written together by one of them (group commit).
///
/// A caller that finds fewer than `maximumGroups` groups being written leads: it takes every member waiting
/// and hands them to its `commit`, which writes them in one transaction, so a busy server pays for one commit
/// per group instead of one per request. While groups are written, the next callers queue up and form the
/// next group. Each caller returns once its own group is written; `commit` sets each member's outcome.
///
/// Wake-ups are targeted: a leader that finishes wakes the callers of its group and hands the lead to one
/// waiting caller, instead of waking every waiting thread to find out which of them leads (with dozens of
/// threads waiting, that futex traffic was a tenth of the server's CPU on PostgreSQL, and on SQLite cost
/// 10–17% of the CPU per installation upsert: BENCHMARKS.md).
public final class GroupCommitter<Member: GroupCommitMember>: @unchecked Sendable {
    // @unchecked: `pending`, `leading` and each member's `done` and `leadHandedOver` are touched only with
    // `lock` held.
    private let lock = NSLock()
    private var pending: [Member] = []
    private var leading = 0
    /// How many groups may be written at once, each by its own leader.
    public let maximumGroups: Int

    public init(maximumGroups: Int = 1) {
        self.maximumGroups = max(1, maximumGroups)
    }

    /// Waits until `member`'s group has been written by `commit`, run by whichever caller leads.
    public func submit(_ member: Member, commit: ([Member]) -> Void) {
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
                    // A lead handed over is taken even when the caller's own group is done meanwhile: the
                    // count of leaders includes it.
                    defer { member.leadHandedOver = false }
                    return (member.leadHandedOver, member.done)
                }
                if !next.leads {
                    if next.done { return }
                    continue
                }
            }
            leads = false
            // Let the threads waiting for a core run first: on a busy server they are parsing the next
            // requests, and those that reach the store meanwhile join this group instead of waiting for the
            // next. With no thread waiting this returns at once. On two cores, without it, SQLite's groups
            // were about one write each: a write commits in less time than another thread parses a request.
            sched_yield()
            let group = lock.withLock {
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            if !group.isEmpty { commit(group) }
            let wakes = lock.withLock { () -> [DispatchSemaphore] in
                for written in group {
                    written.groupWritten()
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
