import Foundation
import Tidings
import TidingsModel
import TidingsTesting

/// A store in a fresh temporary directory, with a manual clock; the directory goes away with the fixture.
final class EventStoreFixture: Sendable {
    let directory: URL
    let clock = ManualClock()
    var path: String { directory.appendingPathComponent("events.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func open(_ configure: (inout EventStore.Configuration) -> Void = { _ in }) throws -> EventStore {
        var configuration = EventStore.Configuration()
        configure(&configuration)
        return try EventStore(path: path, configuration: configuration, clock: clock)
    }

    var now: Int64 { clock.now.millisecondsSince1970 }

    /// A valid event of `type` that occurred now.
    func event(_ type: EventType = .open, messageID: String? = "m-1", value: String? = nil) -> TidingsEvent {
        TidingsEvent(
            type: type, occurredAt: now, installationID: "inst-1", messageID: messageID,
            actionID: type == .action ? "buy" : nil, value: value)
    }
}

/// The path of the built `tidings` CLI, which the multi-process tests run as a child process.
enum TidingsBinary {
    static var url: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("tidings")
    }
}
