import Foundation
import Testing
import Tidings

/// The store shared by two OS processes, and killed with SIGKILL mid-write: the built `tidings` CLI's
/// hidden `queue _write` subcommand is the child process.
@Suite struct EventStoreProcessTests {
    /// Starts a writer whose standard output (one event id per stored event) goes to `output`.
    private func startWriter(db: String, count: Int, burst: Int, output: URL, extra: [String] = []) throws
        -> Process
    {
        let binary = TidingsBinary.url
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the tidings CLI first")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["queue", "_write", "--db", db, "--count", "\(count)", "--burst", "\(burst)"] + extra
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The ids the writer printed in whole lines (a line cut by the kill is not a promise).
    private func printedIDs(_ output: URL) throws -> [UUID] {
        let text = try String(contentsOf: output, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // empty after the last newline, or the partial line
        return lines.map { UUID(uuidString: String($0)) }.compactMap { $0 }
    }

    @Test func twoProcessesWritingAtOnceStoreEveryEventExactlyOnce() throws {
        let fixture = try EventStoreFixture()
        let outputs = (0..<2).map { fixture.directory.appendingPathComponent("writer-\($0).txt") }
        let writers = try outputs.map { try startWriter(db: fixture.path, count: 2_000, burst: 1, output: $0) }
        for writer in writers { writer.waitUntilExit() }
        #expect(writers.map(\.terminationStatus) == [0, 0])
        let printed = try outputs.flatMap { try printedIDs($0) }
        #expect(printed.count == 4_000)
        let store = try fixture.open { $0.maximumEvents = 100_000 }
        let stored = try store.dump().map(\.eventID)
        #expect(stored.count == 4_000)
        #expect(Set(stored) == Set(printed))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func twoProcessesSeeingTheSameMessagesRecordEachDeliveryOnce() throws {
        let fixture = try EventStoreFixture()
        _ = try fixture.open()  // created up front, so both children race on the deliveries alone
        let outputs = (0..<2).map { fixture.directory.appendingPathComponent("delivery-\($0).txt") }
        let writers = try outputs.map {
            try startWriter(
                db: fixture.path, count: 1_000, burst: 1, output: $0,
                extra: ["--deliveries", "--installation", "inst-shared"])
        }
        for writer in writers { writer.waitUntilExit() }
        #expect(writers.map(\.terminationStatus) == [0, 0])
        let recorded = try outputs.flatMap { try printedIDs($0) }
        #expect(recorded.count == 1_000)
        let store = try fixture.open()
        let stats = try store.stats()
        #expect(stats.countsByType == ["delivery": 1_000])
        #expect(stats.rememberedDeliveries == 1_000)
        #expect(Set(try store.dump().map(\.eventID)) == Set(recorded))
    }

    @Test func killedWritersLoseNoEventTheyReportedStored() throws {
        let fixture = try EventStoreFixture()
        var generator = SystemRandomNumberGenerator()
        var printed: [UUID] = []
        for round in 0..<30 {
            let output = fixture.directory.appendingPathComponent("kill-\(round).txt")
            let writer = try startWriter(
                db: fixture.path, count: 1_000_000, burst: round % 3 == 0 ? 20 : 1, output: output)
            if round.isMultiple(of: 2) {
                // Anywhere, including while the store opens or migrates.
                usleep(UInt32.random(in: 5_000...250_000, using: &generator))
            } else {
                // Mid-enqueue for sure, however slowly a loaded machine starts the child.
                let deadline = Date().addingTimeInterval(10)
                while (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0 == 0,
                    Date() < deadline
                {
                    usleep(1_000)
                }
                usleep(UInt32.random(in: 0...50_000, using: &generator))
            }
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            #expect(writer.terminationReason == .uncaughtSignal)
            printed += try printedIDs(output)
        }
        let store = try fixture.open { $0.maximumEvents = 10_000_000 }
        let stored = Set(try store.dump().map(\.eventID))
        let lost = printed.filter { !stored.contains($0) }
        #expect(!printed.isEmpty)
        #expect(lost.isEmpty, "\(lost.count) of \(printed.count) acknowledged events lost")
        #expect(try store.integrityCheck() == ["ok"])
    }
}
