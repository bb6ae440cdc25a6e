import Foundation

/// A piece of work that a caller hands to a ``GroupCommitter``, with what the committer keeps of it while it
/// waits (a base class rather than a wrapper, so that a submission allocates nothing more).
open class GroupCommitMember: @unchecked Sendable {
    // @unchecked: the committer's fields are touched only under its lock; a subclass's own fields are used
    // by the group's leader while the caller waits in `submit`, which returns only after the leader is done,
    // or, for a member handed over with `enqueue`, by the leader alone.
    fileprivate var done = false
    /// Set when a finishing leader chose this caller to lead next; cleared when it takes the lead.
    fileprivate var leadHandedOver = false
    /// Set by `enqueue`: no caller waits for this member, so it is never handed the lead, and the leader
    /// that writes it calls ``groupFinished()``.
    fileprivate var deferred = false
    /// Signalled once when `done` is set, and once for each lead handed over.
    fileprivate let wake = DispatchSemaphore(value: 0)

    public init() {}

    /// Called under the committer's lock once the member's group is written, before its caller returns:
    /// drops whatever the caller lent only for the call (a closure made with `withoutActuallyEscaping`),
    /// since the group's leader may still hold the member for a moment.
    open func groupWritten() {}

    /// Called once for a member handed over with ``GroupCommitter/enqueue(_:commit:)``, after its group is
    /// written, on the leader's thread and outside the committer's lock: it hands the outcome on.
    open func groupFinished() {}
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
///
/// A caller that must not wait (a network thread with other connections to serve) hands its member over
/// with ``enqueue(_:commit:)`` instead, and learns the outcome in ``GroupCommitMember/groupFinished()``.
/// When no waiting caller can take the lead while such members wait, the leader's work goes on on one of
/// the committer's own threads, so that nobody waits for a caller that will not come.
///
/// A `commit` whose transaction ends in a wait it need not watch (a database server's flush of its log) may
/// let the next group start during that wait (``OverlappingCommit``): one group is written while the one
/// before it commits, instead of the server idling through each flush. The members still learn their
/// outcome only once their own group has committed.
public final class GroupCommitter<Member: GroupCommitMember>: @unchecked Sendable {
    // @unchecked: `pending`, `leading`, `continuations` and each member's `done`, `leadHandedOver` and
    // `deferred` are touched only with `lock` held.
    private let lock = NSLock()
    private var pending: [Member] = []
    private var leading = 0
    /// Where a lead goes on without a caller, one thread per group that may be written at once, so that a
    /// lead never waits for a thread: started by the first such lead.
    private var continuations: WorkerThreadPool?
    /// How many groups may be written at once, each by its own leader.
    public let maximumGroups: Int

    public init(maximumGroups: Int = 1) {
        self.maximumGroups = max(1, maximumGroups)
    }

    deinit {
        continuations?.stop()
    }

    /// Writes and commits a group. It may call its second argument once the group's writes are done and only
    /// its commit is left: the next group then starts beside it, on another thread, if members wait and fewer
    /// than ``maximumGroups`` groups are being written. The group's members are not told before `commit`
    /// returns.
    public typealias OverlappingCommit = @Sendable (_ group: [Member], _ nextGroupMayStart: () -> Void) -> Void

    /// What a leader does once its group is written.
    private enum Succession {
        /// A waiting caller leads next.
        case handedOver
        /// Only enqueued members wait: the lead goes on, on one of the committer's threads.
        case continues(WorkerThreadPool)
        /// Nobody waits: one group fewer is being written.
        case released
    }

    /// Waits until `member`'s group has been written by `commit`, run by whichever caller leads.
    public func submit(_ member: Member, commit: @escaping @Sendable ([Member]) -> Void) {
        submit(member, overlappingCommit: { group, _ in commit(group) })
    }

    /// Waits until `member`'s group has been written by `commit`, run by whichever caller leads; `commit` may let
    /// the next group start while its own commits.
    public func submit(_ member: Member, overlappingCommit commit: @escaping OverlappingCommit) {
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
            continueIfNeeded(after: writeGroup(leader: member, commit: commit), commit: commit)
            if lock.withLock({ member.done }) { return }
        }
    }

    /// Adds `member` to the next group without waiting for it to be written; its ``GroupCommitMember/groupFinished()``
    /// is called once it is.
    ///
    /// When no group is being written, the caller writes one itself (its own member included, so an idle
    /// committer adds no thread hop), then leaves any further groups to a waiting caller or to the
    /// committer's own thread. When a group is being written, the member joins the next one, which the
    /// finishing leader writes: an enqueued member never starts a group beside another. Callers that do not
    /// wait arrive one at a time, as their connections are answered, and each that found a free lead
    /// would write a group of one or two: on PostgreSQL, with four groups allowed, installation upserts
    /// made groups of about 7 instead of 20, three times the transactions, and twice the database's CPU
    /// (BENCHMARKS.md).
    public func enqueue(_ member: Member, commit: @escaping @Sendable ([Member]) -> Void) {
        enqueue(member, overlappingCommit: { group, _ in commit(group) })
    }

    /// The same as ``enqueue(_:commit:)``, with a `commit` that may let the next group start while its own
    /// commits.
    public func enqueue(_ member: Member, overlappingCommit commit: @escaping OverlappingCommit) {
        let leads = lock.withLock {
            member.deferred = true
            pending.append(member)
            guard leading == 0 else { return false }
            leading += 1
            return true
        }
        if leads { continueIfNeeded(after: writeGroup(leader: nil, commit: commit), commit: commit) }
    }

    /// Writes the members waiting as one group, wakes their callers, finishes the enqueued ones and decides who
    /// leads next. `leader` is the waiting caller that leads, if any (it checks its own member itself).
    private func writeGroup(leader: Member?, commit: @escaping OverlappingCommit) -> Succession {
        // Let the threads waiting for a core run first: on a busy server they are parsing the next
        // requests, and those that reach the store meanwhile join this group instead of waiting for the
        // next. With no thread waiting this returns at once. On two cores, without it, SQLite's groups
        // were about one write each: a write commits in less time than another thread parses a request.
        sched_yield()
        let group = lock.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        var startedNext = false
        if !group.isEmpty {
            commit(group) {
                if !startedNext { startedNext = startNextGroup(commit: commit) }
            }
        }
        let (wakes, succession) = lock.withLock { () -> ([DispatchSemaphore], Succession) in
            for written in group {
                written.groupWritten()
                written.done = true
            }
            var wakes = group.filter { !$0.deferred && $0 !== leader }.map(\.wake)
            // A leader that started the next group leaves the members waiting now to the groups still being
            // written, which look for them when they finish: so that one group is written at a time while the
            // others commit, rather than several small ones side by side.
            if startedNext && leading > 1 {
                leading -= 1
                return (wakes, .released)
            }
            let successor = pending.first { !$0.deferred && !$0.leadHandedOver }
            if successor == nil, !pending.isEmpty {
                let threads = continuations ?? WorkerThreadPool(threadCount: maximumGroups, name: "group-commit")
                continuations = threads
                return (wakes, .continues(threads))
            }
            let succession: Succession
            if let successor {
                successor.leadHandedOver = true
                wakes.append(successor.wake)
                succession = .handedOver
            } else {
                leading -= 1
                succession = .released
            }
            return (wakes, succession)
        }
        for wake in wakes { wake.signal() }
        for finished in group where finished.deferred { finished.groupFinished() }
        return succession
    }

    /// Starts writing the members waiting as the next group, on a waiting caller's thread or on one of the
    /// committer's, while the caller's own group commits.
    /// - Returns: false when nobody waits, or ``maximumGroups`` groups are being written.
    private func startNextGroup(commit: @escaping OverlappingCommit) -> Bool {
        let start = lock.withLock { () -> Succession? in
            guard leading < maximumGroups, !pending.isEmpty else { return nil }
            leading += 1
            if let successor = pending.first(where: { !$0.deferred && !$0.leadHandedOver }) {
                successor.leadHandedOver = true
                successor.wake.signal()
                return .handedOver
            }
            let threads = continuations ?? WorkerThreadPool(threadCount: maximumGroups, name: "group-commit")
            continuations = threads
            return .continues(threads)
        }
        guard let start else { return false }
        continueIfNeeded(after: start, commit: commit)
        return true
    }

    /// Goes on writing groups on one of the committer's threads while only enqueued members wait.
    private func continueIfNeeded(after succession: Succession, commit: @escaping OverlappingCommit) {
        guard case .continues(let threads) = succession else { return }
        threads.submit {
            while case .continues = self.writeGroup(leader: nil, commit: commit) {}
        }
    }
}
