import Foundation
import Testing
import TidingsModel

@testable import Tidings

@Suite struct WALCheckpointerTests {
    private func walBytes(_ fixture: EventStoreFixture) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")
        return (attributes[.size] as? Int) ?? 0
    }

    @Test func aCheckpointAfterEachQuietMomentLetsTheLogBeReused() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.checkpointInBackground = true }
        let checkpointer = try #require(store.checkpointer)
        for _ in 0..<10 {
            for _ in 0..<100 { try store.enqueue(fixture.event()) }
            checkpointer.waitUntilIdle()
        }
        // 1,000 commits write at least 1,000 pages (4 MB) of log; reused after each checkpoint, the
        // log holds little more than one round of 100 commits.
        #expect(try walBytes(fixture) < 1_000 * 4096)
        #expect(try store.count() == 1_000)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func sustainedWritingStillKeepsTheLogBounded() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open {
            $0.checkpointInBackground = true
            $0.maximumBytes = 200 * 1024 * 1024
        }
        let value = String(repeating: "v", count: 4000)
        for _ in 0..<40 {
            try store.enqueue(contentsOf: (0..<200).map { _ in fixture.event(value: value) })
        }
        // 8,000 events of ~4.4 KB write ~35 MB of pages back to back: only SQLite's own checkpoint at the
        // safety net (16 MB) can keep the log from holding all of it.
        let safetyNet = WALCheckpointer.safetyNetPages * 4096
        #expect(try store.stats().totalBytes > 2 * safetyNet)
        #expect(try walBytes(fixture) < safetyNet + safetyNet / 2)
    }

    @Test func withoutBackgroundCheckpointsSQLiteCheckpointsInsideCommits() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.checkpointInBackground = false }
        #expect(store.checkpointer == nil)
        for _ in 0..<1_500 { try store.enqueue(fixture.event()) }
        #expect(try walBytes(fixture) < 1_500 * 4096)
    }

    /// Issue #34.6: a checkpoint deferred past the background flush ran on its own queue, on the shared
    /// store, whenever iOS happened to suspend the app (0xdead10cc).
    @Test func noCheckpointIsScheduledOnceTheStoreIsReadyForSuspension() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.checkpointInBackground = true }
        let checkpointer = try #require(store.checkpointer)
        try store.enqueue(fixture.event())
        #expect(checkpointer.hasScheduledCheckpoint)
        store.prepareForSuspension()
        #expect(!checkpointer.hasScheduledCheckpoint)
        // A push handled while the app is in the background still commits, but leaves no deferred work.
        try store.enqueue(fixture.event())
        #expect(!checkpointer.hasScheduledCheckpoint)
        store.resumeAfterSuspension()
        try store.enqueue(fixture.event())
        #expect(checkpointer.hasScheduledCheckpoint)
        checkpointer.waitUntilIdle()
        #expect(try store.count() == 3)
    }
}
