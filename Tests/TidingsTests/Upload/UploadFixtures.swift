import Foundation
import Tidings
import TidingsTesting

/// Builders shared by the upload tests.
enum UploadFixtures {
    static let endpoint = URL(string: "https://events.example.test/base")!
    static let appKey = "tk_app_test_secret"
    /// The installation the events are recorded by, registered, with the secret the server issued it.
    static let installation = EventUploader.Installation(
        installationID: "inst-1", secret: InstallationSecret("tdg_ins_" + String(repeating: "s", count: 43))!)

    /// A small valid event `secondsAgo` before `now`.
    static func event(at now: Date, secondsAgo: Int64 = 0, value: String? = nil) -> TidingsEvent {
        TidingsEvent(
            type: .init("open"), occurredAt: now.millisecondsSince1970 - secondsAgo * 1000,
            installationID: "inst-1", messageID: "msg-1", value: value)
    }

    /// A queued row built by hand, for the pure helpers.
    static func queued(_ id: UUID = UUID(), body: String, sequence: Int64 = 1) -> QueuedEvent {
        QueuedEvent(sequence: sequence, eventID: id, type: .init("open"), occurredAt: 0, body: Array(body.utf8))
    }

    /// Serialises a receipt list by hand, so tests can send what a real server would never send.
    static func receipts(_ entries: [JSONValue]) -> [UInt8] {
        Array(try! JSONEncoder().encode(JSONValue.object(["receipts": .array(entries)])))
    }
}

/// A clock, a queue, a scripted transport and a fake server wired to one uploader.
struct UploadHarness {
    let clock = ManualClock()
    let queue: InMemoryEventQueue
    let transport: ScriptedTransport
    let server = EventIngestStub()
    let uploader: EventUploader
    let configuration: EventUploader.Configuration
    /// What the uploader reads as its installation: nil until it has registered.
    let installation = LockedBox<EventUploader.Installation?>(UploadFixtures.installation)

    /// With no script, every request goes to the fake server.
    init(
        script: [ScriptedTransport.Step]? = nil, seed: UInt64 = 1,
        configure: (inout EventUploader.Configuration) -> Void = { _ in }
    ) {
        queue = InMemoryEventQueue(clock: clock)
        let server = self.server
        transport = ScriptedTransport(script ?? [], whenExhausted: .handle { server.handle($0) })
        var configuration = EventUploader.Configuration(
            endpoint: UploadFixtures.endpoint, appKey: UploadFixtures.appKey)
        configure(&configuration)
        self.configuration = configuration
        let installation = self.installation
        uploader = EventUploader(
            configuration: configuration, queue: queue, installation: .init { installation.withLock { $0 } },
            transport: transport, clock: clock,
            random: SeededRandomNumberGenerator(seed: seed))
    }

    /// A step that hands the request to the fake server.
    var serve: ScriptedTransport.Step {
        let server = self.server
        return .handle { server.handle($0) }
    }

    /// Enqueues `count` fresh events; returns their ids, oldest first.
    @discardableResult
    func enqueue(_ count: Int, secondsAgo: Int64 = 0, value: String? = nil) -> [UUID] {
        (0..<count).map { _ in
            let event = UploadFixtures.event(at: clock.now, secondsAgo: secondsAgo, value: value)
            queue.enqueue(event)
            return event.eventID
        }
    }

    /// The ids in each request body, in order, read back from the wire.
    func sentBatches() -> [[UUID]] {
        transport.requests.map { request in
            let json = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body))
            return (json?["events"]?.arrayValue ?? []).compactMap { $0["event_id"]?.stringValue }
                .compactMap(UUID.init(uuidString:))
        }
    }

    /// Yields until `condition` holds, a bounded number of times; returns whether it held.
    func settle(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<10_000 {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }
}
