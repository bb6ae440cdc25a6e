import Testing
import Tidings
import TidingsModel

@Suite struct TokenUpdateQueueTests {
    @Test func aSlowUpdateIsNotOvertakenByTheOneAfterIt() async {
        let queue = TokenUpdateQueue()
        let applied = LockedBox<[String]>([])
        queue.enqueue {
            try? await Task.sleep(for: .milliseconds(30))
            applied.withLock { $0.append("update") }
        }
        queue.enqueue { applied.withLock { $0.append("invalidate") } }
        await queue.waitUntilIdle()
        #expect(applied.withLock { $0 } == ["update", "invalidate"])
    }

    @Test func waitingOnAnIdleQueueReturnsAtOnce() async {
        let queue = TokenUpdateQueue()
        await queue.waitUntilIdle()
        let applied = LockedBox(0)
        for _ in 0..<10 { queue.enqueue { applied.withLock { $0 += 1 } } }
        await queue.waitUntilIdle()
        #expect(applied.withLock { $0 } == 10)
    }
}
