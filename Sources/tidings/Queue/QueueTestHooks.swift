import Foundation
import Tidings
import TidingsModel

/// Hidden subcommands the multi-process and kill -9 tests run as child processes; not for people.
///
/// - `_write --db PATH --count N [--burst K] [--installation ID] [--deliveries]`: enqueues N events (K per
///   call), and prints each event id on its own line only after the call that stored it returned. With
///   `--deliveries` it records `delivery` events for messages `msg-0` ... `msg-(N-1)` one by one instead,
///   and prints the ids of those ``EventStore/recordDelivery(_:)`` stored (it was first).
/// - `_verify --db PATH --ids FILE`: checks that every id in FILE is stored exactly once and that SQLite's
///   integrity check passes; prints one JSON line and exits 1 when anything is wrong.
enum QueueTestHooks {
    static func write(_ rawArguments: [String]) throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ["db", "count", "burst", "installation"], flags: ["deliveries"])
        let count = Int(arguments.option("count") ?? "1000") ?? 1000
        let burst = max(1, Int(arguments.option("burst") ?? "1") ?? 1)
        let installationID = arguments.option("installation") ?? "writer-\(getpid())"
        guard let path = arguments.option("db") else { throw CommandLineError.usage("queue: --db PATH is required") }
        var configuration = EventStore.Configuration()
        // The tests count every printed id, so nothing may be dropped for the cap.
        configuration.maximumEvents = 100_000_000
        configuration.maximumBytes = Int.max / 2
        let store = try QueueCommand.storeCall { try EventStore(path: path, configuration: configuration) }
        if arguments.flag("deliveries") {
            for index in 0..<count {
                let event = TidingsEvent(
                    type: .delivery, occurredAt: Date().millisecondsSince1970, installationID: installationID,
                    messageID: "msg-\(index)", source: .extension, appState: .extension)
                if try QueueCommand.storeCall({ try store.recordDelivery(event) }) {
                    FileHandle.standardOutput.write(Data((event.eventID.uuidString.lowercased() + "\n").utf8))
                }
            }
            return ExitCode.success
        }
        var written = 0
        while written < count {
            let now = Date().millisecondsSince1970
            let events = (0..<min(burst, count - written)).map { index in
                TidingsEvent(
                    type: .open, occurredAt: now, installationID: installationID, messageID: "msg-\(written + index)",
                    source: .app, appState: .foreground)
            }
            try QueueCommand.storeCall { try store.enqueue(contentsOf: events) }
            let lines = events.map { $0.eventID.uuidString.lowercased() + "\n" }.joined()
            FileHandle.standardOutput.write(Data(lines.utf8))
            written += events.count
        }
        return ExitCode.success
    }

    static func verify(_ rawArguments: [String]) throws -> Int32 {
        let arguments = try ArgumentList(rawArguments, options: ["db", "ids"])
        guard let idsPath = arguments.option("ids") else {
            throw CommandLineError.usage("queue: --ids FILE is required")
        }
        let expected = try String(contentsOfFile: idsPath, encoding: .utf8).split(separator: "\n")
            .compactMap { UUID(uuidString: String($0)) }
        let store = try QueueCommand.openStore(arguments)
        let stored = try QueueCommand.storeCall { try store.dump().map(\.eventID) }
        let storedSet = Set(stored)
        let missing = expected.filter { !storedSet.contains($0) }.count
        let duplicates = stored.count - storedSet.count
        let integrity = try QueueCommand.storeCall { try store.integrityCheck() }.joined(separator: "; ")
        let report: JSONValue = [
            "expected": .integer(Int64(expected.count)), "stored": .integer(Int64(stored.count)),
            "missing": .integer(Int64(missing)), "duplicates": .integer(Int64(duplicates)),
            "integrity": .string(integrity),
        ]
        Console.write(String(decoding: try QueueCommand.encode(report, pretty: false), as: UTF8.self) + "\n")
        return missing == 0 && duplicates == 0 && integrity == "ok" ? ExitCode.success : ExitCode.failure
    }
}
