import Foundation
import Testing
import TidingsForwarding
import TidingsModel
import TidingsStore
import TidingsTestSupport

@Suite struct NDJSONFileDestinationTests {
    static func batch(_ id: String) -> ForwardingBatch {
        let row = ForwardingEventRow(
            sequence: 1, receivedAt: 2, eventID: id, type: "open", occurredAt: 1, installationID: "i",
            platform: "ios")
        return ForwardingBatch(id: id, forwarderID: "fwd_file", appID: "app", events: [ForwardedEvent(row: row)])
    }

    @Test func aRestartInTheSameSecondNeverWritesIntoTheFileOfTheProcessBefore() async throws {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        // The crashed process's file, cut short mid-line, with the name a new process picks first.
        let crashed = NDJSONFileDestination(directory: directory.url, forwarderID: "fwd_file", clock: clock)
        try await crashed.deliver(Self.batch("before-crash"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.count == 1)
        let crashedPath = directory.url.appendingPathComponent(names[0]).path
        let handle = try #require(FileHandle(forWritingAtPath: crashedPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"event_id":"cut"#.utf8))
        try handle.close()
        let crashedBytes = try Data(contentsOf: URL(fileURLWithPath: crashedPath))

        let restarted = NDJSONFileDestination(directory: directory.url, forwarderID: "fwd_file", clock: clock)
        try await restarted.deliver(Self.batch("after-restart"))
        restarted.close()

        #expect(try Data(contentsOf: URL(fileURLWithPath: crashedPath)) == crashedBytes)
        let after = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(after.count == 2)
        let newName = try #require(after.first { $0 != names[0] })
        #expect(newName.hasSuffix("-2.ndjson"), "\(after)")
        let written = try String(contentsOf: directory.url.appendingPathComponent(newName), encoding: .utf8)
        #expect(written.contains(#""event_id":"after-restart""#) && !written.contains("before-crash"))
    }

    @Test func aDirectoryThatCannotBeWrittenIsARetryableFailureNamingThePath() async throws {
        let directory = try TemporaryDirectory()
        let blocked = directory.url.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocked)
        let destination = NDJSONFileDestination(directory: blocked, forwarderID: "fwd_file", clock: TestClock())
        await #expect(throws: ForwardingFailure.self) { try await destination.deliver(Self.batch("e1")) }
        do {
            try await destination.deliver(Self.batch("e2"))
        } catch {
            #expect(error.kind == .retryable && error.message.contains("not-a-directory"), "\(error)")
        }
    }
}
