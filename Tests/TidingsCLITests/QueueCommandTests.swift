import Foundation
import Testing

@Suite struct QueueCommandTests {
    /// A temporary directory with a store of `count` events written by the CLI's hidden writer.
    private func storeWith(_ count: Int) async throws -> (directory: URL, db: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-queue-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let db = directory.appendingPathComponent("events.sqlite").path
        let result = try await TidingsExecutable.run([
            "queue", "_write", "--db", db, "--count", "\(count)", "--burst", "2",
        ])
        #expect(result.status == 0)
        return (directory, db)
    }

    @Test func statsForAPersonAreAligned() async throws {
        let (directory, db) = try await storeWith(3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run(["queue", "stats", "--db", db])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        let bytes = try await size(db)
        #expect(lines.contains { $0.hasPrefix("events ") && $0.hasSuffix(" 3 (\(bytes) B)") })
        #expect(lines.contains { $0.hasPrefix("  open") && $0.hasSuffix(" 3") })
        let valueColumns = Set(lines.map { valueColumn(String($0)) })
        #expect(valueColumns.count == 1)
    }

    @Test func statsAsJSON() async throws {
        let (directory, db) = try await storeWith(4)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run(["queue", "stats", "--db", db, "--json"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(object?["event_count"] as? Int == 4)
        #expect((object?["counts_by_type"] as? [String: Int]) == ["open": 4])
        #expect(object?["schema_version"] as? Int == 2)
    }

    @Test func dumpAsJSONIsOneEventPerLineInOrder() async throws {
        let (directory, db) = try await storeWith(5)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run(["queue", "dump", "--db", db, "--json"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 5)
        let messages = try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["message_id"] as? String
        }
        #expect(messages == (0..<5).map { "msg-\($0)" })
    }

    @Test func dumpForAPersonListsEveryEvent() async throws {
        let (directory, db) = try await storeWith(2)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run(["queue", "dump", "--db", db])
        #expect(result.status == 0)
        #expect(result.standardOutput.split(separator: "\n").count == 3)
        #expect(result.standardOutput.hasPrefix("SEQ"))
    }

    @Test(arguments: ["stats", "dump"])
    func aMissingStoreIsAnErrorAndIsNotCreated(subcommand: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID()).sqlite").path
        let result = try await TidingsExecutable.run(["queue", subcommand, "--db", path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("no event store"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aGarbageFileIsAOneLineError() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(UUID()).sqlite").path
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await TidingsExecutable.run(["queue", "stats", "--db", path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("not_a_database"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ["queue"], ["queue", "stats"], ["queue", "stats", "--db"], ["queue", "nope"],
        ["queue", "stats", "--db", "x", "--bogus"], ["queue", "flush", "--db", "x"],
        ["queue", "flush", "--db", "x", "--endpoint", "ftp://h", "--app-key", "k"],
    ])
    func badCommandLinesAreUsageErrors(arguments: [String]) async throws {
        let result = try await TidingsExecutable.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func helpIsUsageOnStandardOutput() async throws {
        let result = try await TidingsExecutable.run(["queue", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("JSON Lines"))
    }

    @Test func flushToAnUnreachableServerKeepsEveryEventAndFails() async throws {
        let (directory, db) = try await storeWith(3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run([
            "queue", "flush", "--db", db, "--endpoint", "http://127.0.0.1:9", "--app-key", "key",
            "--installation", "inst-1", "--installation-secret", "tdg_ins_" + String(repeating: "a", count: 43),
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("next try after"))
        let stats = try await TidingsExecutable.run(["queue", "stats", "--db", db, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [String: Any]
        #expect(object?["event_count"] as? Int == 3)
    }

    /// The column where the value starts: after the label and its padding.
    private func valueColumn(_ line: String) -> Int {
        let characters = Array(line)
        var index = 0
        while index < characters.count, characters[index] == " " { index += 1 }
        while index + 1 < characters.count, !(characters[index] == " " && characters[index + 1] == " ") {
            index += 1
        }
        while index < characters.count, characters[index] == " " { index += 1 }
        return index
    }

    /// The total event bytes, read back through `dump --json`.
    private func size(_ db: String) async throws -> Int {
        let result = try await TidingsExecutable.run(["queue", "dump", "--db", db, "--json"])
        return result.standardOutput.split(separator: "\n").reduce(0) { $0 + $1.utf8.count }
    }
}
