import Foundation
import Testing
import TidingsModel

/// Callers on threads of their own (GCD would run about one per core), so that hand-overs interleave.
@Suite struct GroupCommitterTests {
    final class Write: GroupCommitMember, @unchecked Sendable {
        // @unchecked: written by the group's leader while the caller waits in `submit`.
        let number: Int
        var written = false
        var lent: (() -> Void)? = {}

        init(_ number: Int) {
            self.number = number
        }

        override func groupWritten() { lent = nil }
    }

    /// A write handed over with `enqueue`: its caller does not wait, and learns when it is done.
    final class Enqueued: GroupCommitMember, @unchecked Sendable {
        // @unchecked: written by the group's leader; `finishedOn` read once `finished` is signalled.
        let number: Int
        var written = false
        var finishedOn: Thread?
        let finished: DispatchGroup

        init(_ number: Int, finished: DispatchGroup) {
            self.number = number
            self.finished = finished
            finished.enter()
        }

        override func groupFinished() {
            finishedOn = Thread.current
            finished.leave()
        }
    }

    /// Runs `threads` × `perThread` submissions and returns each write, once its caller has returned.
    func run(
        _ committer: GroupCommitter<Write>, threads: Int, perThread: Int,
        commit: @escaping @Sendable ([Write]) -> Void
    ) -> [Write]? {
        let returned = LockedBox([Write]())
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread {
                defer { finished.leave() }
                for step in 0..<perThread {
                    let write = Write(thread * perThread + step)
                    committer.submit(write, commit: commit)
                    returned.withLock { $0.append(write) }
                }
            }.start()
        }
        // A lost wake-up leaves a caller waiting for ever: bounded, so the test fails instead of hanging.
        guard finished.wait(timeout: .now() + 60) == .success else { return nil }
        return returned.withLock { $0 }
    }

    @Test func everyCallerReturnsOnlyOnceItsGroupIsWrittenAndWhatItLentIsDropped() throws {
        let committer = GroupCommitter<Write>()
        let groups = LockedBox([Int]())
        let writes = try #require(
            run(committer, threads: 32, perThread: 50) { group in
                for write in group { write.written = true }
                groups.withLock { $0.append(group.count) }
            })
        #expect(Set(writes.map(\.number)) == Set(0..<1600))
        #expect(writes.allSatisfy { $0.written && $0.lent == nil })
        let grouped = groups.withLock { $0.reduce(0, +) }
        #expect(grouped == 1600)
    }

    @Test func noMoreGroupsAreWrittenAtOnceThanAllowed() throws {
        let committer = GroupCommitter<Write>(maximumGroups: 3)
        let (now, most) = (LockedBox(0), LockedBox(0))
        let writes = try #require(
            run(committer, threads: 32, perThread: 20) { group in
                let writing = now.withLock {
                    $0 += 1; return $0
                }
                most.withLock { $0 = max($0, writing) }
                usleep(200)
                for write in group { write.written = true }
                now.withLock { $0 -= 1 }
            })
        #expect(writes.count == 640)
        #expect(writes.allSatisfy { $0.written })
        let mostAtOnce = most.withLock { $0 }
        #expect((1...3).contains(mostAtOnce))
    }

    @Test func anIdleCommitterWritesAnEnqueuedMemberOnTheCallersThreadBeforeReturning() {
        let committer = GroupCommitter<Enqueued>()
        let finished = DispatchGroup()
        let member = Enqueued(0, finished: finished)
        committer.enqueue(member) { group in for write in group { write.written = true } }
        #expect(member.written)
        #expect(member.finishedOn === Thread.current)
        #expect(finished.wait(timeout: .now()) == .success)
    }

    /// Members enqueued while a group is written are written after it by the committer's own thread: no
    /// caller waits, and none is asked to lead.
    @Test func membersEnqueuedWhileAGroupIsWrittenAreWrittenWithoutTheirCallers() throws {
        let committer = GroupCommitter<Enqueued>()
        let finished = DispatchGroup()
        let (entered, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let groups = LockedBox([[Int]]())
        let commit: @Sendable ([Enqueued]) -> Void = { group in
            // The first group holds the lead until every other member is enqueued.
            if group.first?.number == 0 {
                entered.signal()
                release.wait()
            }
            for write in group { write.written = true }
            groups.withLock { $0.append(group.map(\.number)) }
        }
        let first = Enqueued(0, finished: finished)
        let leader = Thread { committer.enqueue(first, commit: commit) }
        leader.start()
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let later = (1...20).map { Enqueued($0, finished: finished) }
        for member in later { committer.enqueue(member, commit: commit) }
        #expect(later.allSatisfy { !$0.written }, "the callers returned at once, their writes still pending")
        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(later.allSatisfy { $0.written && $0.finishedOn != nil && $0.finishedOn !== Thread.current })
        let written = groups.withLock { $0 }
        #expect(written.first == [0])
        #expect(written.dropFirst().flatMap { $0 } == Array(1...20))
        #expect(written.count == 2, "the 20 members waiting were written as one group, not \(written)")
    }

    /// Callers that wait and callers that do not share the groups, and every one of them is written once,
    /// with no more groups at once than allowed.
    @Test func waitingAndEnqueuedCallersMixWithinTheGroupLimit() throws {
        let committer = GroupCommitter<GroupCommitMember>(maximumGroups: 2)
        let finished = DispatchGroup()
        let (now, most, written) = (LockedBox(0), LockedBox(0), LockedBox([Int]()))
        let commit: @Sendable ([GroupCommitMember]) -> Void = { group in
            let writing = now.withLock {
                $0 += 1
                return $0
            }
            most.withLock { $0 = max($0, writing) }
            usleep(100)
            for member in group {
                if let write = member as? Write {
                    write.written = true
                    written.withLock { $0.append(write.number) }
                } else if let write = member as? Enqueued {
                    write.written = true
                    written.withLock { $0.append(write.number) }
                }
            }
            now.withLock { $0 -= 1 }
        }
        let (members, waited) = (LockedBox([Enqueued]()), LockedBox([Write]()))
        let threads = DispatchGroup()
        for thread in 0..<24 {
            threads.enter()
            Thread {
                defer { threads.leave() }
                for step in 0..<40 {
                    let number = thread * 40 + step
                    // Every third caller waits; the others hand their write over.
                    if thread % 3 == 0 {
                        let write = Write(number)
                        committer.submit(write, commit: commit)
                        waited.withLock { $0.append(write) }
                    } else {
                        let member = Enqueued(number, finished: finished)
                        members.withLock { $0.append(member) }
                        committer.enqueue(member, commit: commit)
                    }
                }
            }.start()
        }
        #expect(threads.wait(timeout: .now() + 60) == .success)
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let (waitedWrites, enqueuedWrites) = (waited.withLock { $0 }, members.withLock { $0 })
        #expect(waitedWrites.count == 320 && waitedWrites.allSatisfy { $0.written })
        #expect(enqueuedWrites.count == 640 && enqueuedWrites.allSatisfy { $0.written })
        let numbers = written.withLock { $0 }
        #expect(numbers.count == 960 && Set(numbers) == Set(0..<960), "each member written once")
        #expect((1...2).contains(most.withLock { $0 }))
    }

    /// A commit that lets the next group start: that group is written while the first still commits, and the
    /// first group's members learn nothing until their own commit is done.
    @Test func theNextGroupIsWrittenWhileTheOneBeforeItCommits() throws {
        let committer = GroupCommitter<Enqueued>(maximumGroups: 2)
        let finished = DispatchGroup()
        let (entered, release, secondWritten) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        let first = Enqueued(0, finished: finished)
        let seenByFirst = LockedBox<(secondWritten: Bool, firstFinished: Bool)?>(nil)
        let commit: GroupCommitter<Enqueued>.OverlappingCommit = { group, nextGroupMayStart in
            for write in group { write.written = true }
            guard group.first?.number == 0 else {
                secondWritten.signal()
                return
            }
            entered.signal()
            release.wait()
            nextGroupMayStart()
            // The first group's commit lasts until the second group is written: only a second group
            // started beside it can end it.
            let written = secondWritten.wait(timeout: .now() + 10) == .success
            seenByFirst.withLock { $0 = (written, first.finishedOn != nil) }
        }
        Thread { committer.enqueue(first, overlappingCommit: commit) }.start()
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let later = (1...10).map { Enqueued($0, finished: finished) }
        for member in later { committer.enqueue(member, overlappingCommit: commit) }
        release.signal()
        #expect(finished.wait(timeout: .now() + 20) == .success)
        let seen = try #require(seenByFirst.withLock { $0 })
        #expect(seen.secondWritten, "the second group waited for the first to commit")
        #expect(!seen.firstFinished, "the first group's member was told before its commit was done")
        #expect(([first] + later).allSatisfy { $0.written && $0.finishedOn != nil })
    }

    /// Groups that overlap their commits still write one at a time, never more than allowed are open at
    /// once, and every member is written once.
    @Test func overlappingGroupsWriteOneAtATimeWithinTheGroupLimit() throws {
        let committer = GroupCommitter<Enqueued>(maximumGroups: 3)
        let finished = DispatchGroup()
        let (writing, open) = (LockedBox((now: 0, most: 0)), LockedBox((now: 0, most: 0)))
        let written = LockedBox([Int]())
        @Sendable func enter(_ count: LockedBox<(now: Int, most: Int)>) {
            count.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
        }
        let commit: GroupCommitter<Enqueued>.OverlappingCommit = { group, nextGroupMayStart in
            enter(open)
            enter(writing)
            usleep(100)
            for write in group { write.written = true }
            written.withLock { $0 += group.map(\.number) }
            writing.withLock { $0.now -= 1 }
            nextGroupMayStart()
            usleep(300)
            open.withLock { $0.now -= 1 }
        }
        let members = LockedBox([Enqueued]())
        let threads = DispatchGroup()
        for thread in 0..<16 {
            threads.enter()
            Thread {
                defer { threads.leave() }
                for step in 0..<40 {
                    let member = Enqueued(thread * 40 + step, finished: finished)
                    members.withLock { $0.append(member) }
                    committer.enqueue(member, overlappingCommit: commit)
                    if step % 8 == 0 { usleep(50) }
                }
            }.start()
        }
        #expect(threads.wait(timeout: .now() + 60) == .success)
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let numbers = written.withLock { $0 }
        #expect(numbers.count == 640 && Set(numbers) == Set(0..<640), "each member written once")
        #expect(members.withLock { $0 }.allSatisfy { $0.written && $0.finishedOn != nil })
        #expect(writing.withLock { $0.most } == 1)
        #expect((1...3).contains(open.withLock { $0.most }))
    }
}
