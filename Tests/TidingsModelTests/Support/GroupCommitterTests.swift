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
}
