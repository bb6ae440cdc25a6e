import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

@Suite struct ReadinessProbeTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "broken for a reason" }
    }

    static func text(_ report: ReadinessReport) -> String { String(decoding: report.jsonBody, as: UTF8.self) }

    @Test func everyCheckPassingIsReady() async {
        let probe = ReadinessProbe(checks: [ReadinessCheck("store") {}, ReadinessCheck("fanout") {}])
        let report = await probe.report()
        #expect(report.isReady)
        #expect(report.status == 200)
        #expect(
            Self.text(report) == #"{"checks":{"fanout":{"status":"ok"},"store":{"status":"ok"}},"status":"ready"}"#)
    }

    @Test func oneFailingCheckMakesItNotReadyAndSaysWhich() async {
        let probe = ReadinessProbe(checks: [
            ReadinessCheck("store") { throw ReadinessCheck.Failure("the store refuses writes: disk I/O error") },
            ReadinessCheck("fanout") {},
            ReadinessCheck("other") { throw Broken() },
        ])
        let report = await probe.report()
        #expect(!report.isReady)
        #expect(report.status == 503)
        #expect(
            report.outcomes == [
                .init(name: "store", failure: "the store refuses writes: disk I/O error"), .init(name: "fanout"),
                .init(name: "other", failure: "broken for a reason"),
            ])
        #expect(
            Self.text(report)
                == #"{"checks":{"fanout":{"status":"ok"},"other":{"message":"broken for a reason","status":"failed"},"store":{"message":"the store refuses writes: disk I/O error","status":"failed"}},"status":"not_ready"}"#
        )
    }

    @Test func noChecksIsReady() async {
        #expect(await ReadinessProbe(checks: []).report().isReady)
    }

    @Test func aReportIsReusedUntilItsCacheDurationHasPassed() async {
        let runs = LockedBox(0)
        let healthy = LockedBox(false)
        let clock = TestClock()
        let probe = ReadinessProbe(
            checks: [
                ReadinessCheck("store") {
                    runs.withLock { $0 += 1 }
                    guard healthy.withLock({ $0 }) else { throw ReadinessCheck.Failure("down") }
                }
            ], cacheDuration: .seconds(2), clock: clock)
        #expect(await probe.report().isReady == false)
        healthy.withLock { $0 = true }
        clock.advance(by: .milliseconds(1999))
        #expect(await probe.report().isReady == false)
        #expect(runs.withLock { $0 } == 1)
        clock.advance(by: .milliseconds(1))
        #expect(await probe.report().isReady == true)
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func pollsArrivingTogetherShareOneRun() async {
        let runs = LockedBox(0)
        let probe = ReadinessProbe(
            checks: [
                ReadinessCheck("slow") {
                    runs.withLock { $0 += 1 }
                    try await Task.sleep(for: .milliseconds(200))
                }
            ], clock: TestClock())
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { await probe.report().isReady } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 20))
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func aCheckThatHangsFailsAtItsTimeoutWithoutHoldingTheOthers() async {
        let probe = ReadinessProbe(
            checks: [
                ReadinessCheck("hangs") { try await Task.sleep(for: .seconds(60)) },
                ReadinessCheck("fine") {},
            ], checkTimeout: .milliseconds(100))
        let started = ContinuousClock.now
        let report = await probe.report()
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(report.outcomes == [.init(name: "hangs", failure: "no answer within 0.1 s"), .init(name: "fine")])
    }
}
