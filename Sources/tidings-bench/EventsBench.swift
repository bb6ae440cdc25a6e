import Foundation
import Tidings
import TidingsModel

/// The event store's figures: enqueue latency (single and burst), lease + serialise of a full batch,
/// group commit on and off, and throughput against the reference design's queue (a JSON array rewritten
/// whole, with fsync, on every enqueue; FIFO, at most 1,000 events).
enum EventsBench {
    static func run() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-bench-\(UUID())")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var storeNumber = 0
        func freshStore(_ configure: (inout EventStore.Configuration) -> Void = { _ in }) -> EventStore {
            storeNumber += 1
            var configuration = EventStore.Configuration()
            configure(&configuration)
            return try! EventStore(
                path: directory.appendingPathComponent("store-\(storeNumber).sqlite").path,
                configuration: configuration)
        }
        let eventBytes = try! sampleEvent(0).json.serialized().count
        print(
            "events: sample event \(eventBytes) B; store default bounds 10,000 events / 5 MB; WAL, synchronous=NORMAL")

        // Enqueue, one event per call; with SQLite's own checkpoints inside commits, then in the background.
        for background in [false, true] {
            let single = freshStore { $0.checkpointInBackground = background }
            for index in 0..<200 { try! single.enqueue(sampleEvent(index)) }  // warm-up
            let samples = (0..<3_000).map { index in timed { try! single.enqueue(sampleEvent(index)) } }
            let name = "enqueue single (1 event/call), checkpoint \(background ? "in background" : "inside commits")"
            report(name, samples.map(\.wall), perCall: 1)
            report(name + ", thread CPU", samples.map(\.cpu), perCall: 1)
        }
        let encodeSamples = (0..<3_000).map { index in
            let event = sampleEvent(index)
            return time { _ = try! event.json.serialized() }
        }
        report("of which serialising one event", encodeSamples, perCall: 1)

        // Enqueue, bursts of 100.
        let burst = freshStore()
        let burstSamples = (0..<60).map { round in
            let events = (0..<100).map { sampleEvent(round * 100 + $0) }
            return timed { try! burst.enqueue(contentsOf: events) }
        }
        report("enqueue burst (100 events/call)", burstSamples.map(\.wall), perCall: 100)
        report("enqueue burst (100 events/call), thread CPU", burstSamples.map(\.cpu), perCall: 100)

        // Lease + serialise a 500-event batch; released (untimed) as a failed upload would, for the next round.
        let leaseSamples = (0..<50).map { _ in
            var lease: EventLease?
            let sample = timed {
                lease = try! burst.lease(maxEvents: 500, maxBytes: 1 << 20)!
                let body = EventBatchBody.make(lease!.events)
                precondition(lease!.events.count == 500 && body.count > 500 * 100)
            }
            try! burst.release(lease!)
            return sample
        }
        report("lease + serialise 500", leaseSamples.map(\.wall), perCall: nil)
        report("lease + serialise 500, thread CPU", leaseSamples.map(\.cpu), perCall: nil)

        // Group commit: 4 threads enqueueing single events at once.
        for groupCommit in [false, true] {
            for durability in EventStore.Durability.allCases {
                let store = freshStore {
                    $0.groupCommit = groupCommit
                    $0.durability = durability
                }
                let perThread = durability == .powerSafe ? 300 : 2_000
                let seconds = measureConcurrent(threads: 4, perThread: perThread) { index in
                    try! store.enqueue(sampleEvent(index))
                }
                print(
                    "events: 4 threads x \(perThread), group commit \(groupCommit ? "on " : "off"), \(durability): "
                        + "\(Int(Double(4 * perThread) / seconds)) events/s")
            }
        }

        // Throughput at 1,000 queued events: ours and the baseline.
        // Both capped at 1,000 and full, so every enqueue also drops the oldest, as the baseline's FIFO does.
        let ours = freshStore { $0.maximumEvents = 1_000 }
        try! ours.enqueue(contentsOf: (0..<1_000).map(sampleEvent))
        let oursCount = 3_000
        let oursSeconds = time { for index in 0..<oursCount { try! ours.enqueue(sampleEvent(index)) } }
        let oursRate = Double(oursCount) / oursSeconds
        let baseline = JSONArrayFileQueue(url: directory.appendingPathComponent("baseline.json"), capacity: 1_000)
        baseline.prefill((0..<1_000).map(sampleEvent))
        let baselineCount = 200
        var baselineSamples: [Double] = []
        for index in 0..<baselineCount {
            baselineSamples.append(time { baseline.append(sampleEvent(index)) })
        }
        let baselineRate = Double(baselineCount) / baselineSamples.reduce(0, +)
        report("baseline enqueue single (JSON array file + fsync, 1,000 queued)", baselineSamples, perCall: 1)
        let baselineLease = (0..<20).map { _ in time { precondition(baseline.batchBody(500).count > 0) } }
        report("baseline serialise 500", baselineLease, perCall: nil)
        print(
            "events: throughput at 1,000 queued: store \(Int(oursRate)) events/s, baseline \(Int(baselineRate)) "
                + "events/s, ratio \(String(format: "%.0f", oursRate / baselineRate))x")
    }

    /// A typical `open` event, about 450 bytes of JSON.
    static func sampleEvent(_ index: Int) -> TidingsEvent {
        TidingsEvent(
            type: .open, occurredAt: Date().millisecondsSince1970,
            installationID: "6f1c2d8e-4b7a-4f1e-9c3d-2a5b8e7f0c11",
            sdkVersion: "1.0.0", appVersion: "4.12.0", osVersion: "18.1", deviceModel: "iPhone16,2",
            userID: "user-48213", messageID: "msg-\(index)", campaignID: "spring-sale-2026", dialect: "native",
            source: .app, appState: .background, attributes: ["screen": "home", "variant": "b"])
    }

    static func time(_ body: () -> Void) -> Double {
        timed(body).wall
    }

    /// Wall-clock and this thread's CPU seconds for `body`: on a loaded machine the wall figure includes
    /// time spent descheduled, the CPU figure does not (nor does it include waiting for the disk).
    static func timed(_ body: () -> Void) -> (wall: Double, cpu: Double) {
        let cpuStart = threadCPUTime()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (wall, threadCPUTime() - cpuStart)
    }

    static func threadCPUTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func measureConcurrent(threads: Int, perThread: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
        let group = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        for thread in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                for index in 0..<perThread { body(thread * perThread + index) }
                group.leave()
            }
        }
        group.wait()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func report(_ name: String, _ samples: [Double], perCall: Int?) {
        let sorted = samples.sorted()
        func percentile(_ fraction: Double) -> Double { Measure.percentile(sorted, fraction) * 1000 }
        var line = String(
            format: "events: %@: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d calls)", name, percentile(0.5),
            percentile(0.99), sorted.last! * 1000, samples.count)
        if let perCall {
            line += String(format: ", %.0f events/s", Double(perCall * samples.count) / samples.reduce(0, +))
        }
        print(line)
    }
}

/// The reference design's queue: every event in one JSON array, rewritten whole (temp file, fsync, rename,
/// as `UserDefaults` persists a plist) on every enqueue; FIFO, the oldest dropped beyond `capacity`.
final class JSONArrayFileQueue {
    let url: URL
    let capacity: Int
    private var events: [JSONValue] = []

    init(url: URL, capacity: Int) {
        self.url = url
        self.capacity = capacity
    }

    func append(_ event: TidingsEvent) {
        events.append(event.json)
        if events.count > capacity { events.removeFirst(events.count - capacity) }
        let data = try! JSONEncoder().encode(JSONValue.array(events))
        let temporary = url.appendingPathExtension("tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        data.withUnsafeBytes { buffer in _ = write(descriptor, buffer.baseAddress, buffer.count) }
        fsync(descriptor)
        close(descriptor)
        rename(temporary.path, url.path)
    }

    func prefill(_ events: [TidingsEvent]) {
        self.events = events.map(\.json)
    }

    func batchBody(_ count: Int) -> Data {
        try! JSONEncoder().encode(["events": JSONValue.array(Array(events.prefix(count)))])
    }
}
