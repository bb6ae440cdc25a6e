import Foundation
import TidingsModel

/// Runs a server's ``ReadinessCheck``s for `GET /readyz`, at most once per ``cacheDuration``.
///
/// Load balancers poll readiness every second or two from several places at once; each poll must not
/// become a store write and a credentials read. So a report is reused for ``cacheDuration`` after it was
/// made, and polls that arrive while the checks run wait for that one run instead of starting their own.
///
/// Checks run concurrently, each within ``checkTimeout``: a check that hangs (a store waiting on a lock)
/// fails as a timeout, and the answer does not wait for it.
///
/// ```swift
/// let readiness = ReadinessProbe(checks: [ReadinessCheck("store") { try store.ping() }])
/// router.addOperationsRoutes(metrics: registry, readiness: readiness)
/// ```
public actor ReadinessProbe {
    public nonisolated let checks: [ReadinessCheck]
    /// How long a report is reused.
    public nonisolated let cacheDuration: Duration
    /// How long one check may take before it counts as failed.
    public nonisolated let checkTimeout: Duration
    private let clock: any TidingsClock
    private let logger: Logger
    private var cached: (report: ReadinessReport, until: Date)?
    private var running: Task<ReadinessReport, Never>?
    /// Whether the last report was ready; transitions are logged, steady states are not.
    private var lastReady: Bool?

    /// - Parameters:
    ///   - clock: decides when a cached report is stale; tests pass a manual one.
    ///   - logger: where changes between ready and not ready are logged (`info`), with each failure.
    public init(
        checks: [ReadinessCheck], cacheDuration: Duration = .seconds(2), checkTimeout: Duration = .seconds(5),
        clock: any TidingsClock = SystemClock(), logger: Logger = .disabled()
    ) {
        self.checks = checks
        self.cacheDuration = cacheDuration
        self.checkTimeout = checkTimeout
        self.clock = clock
        self.logger = logger
    }

    /// The current report: the cached one while it is fresh, otherwise the checks are run.
    public func report() async -> ReadinessReport {
        if let cached, clock.now < cached.until { return cached.report }
        if let running { return await running.value }
        let (checks, timeout) = (self.checks, checkTimeout)
        let task = Task { await Self.run(checks, timeout: timeout) }
        running = task
        let report = await task.value
        running = nil
        cached = (report, clock.now.addingTimeInterval(cacheDuration.seconds))
        noteTransition(to: report)
        return report
    }

    private func noteTransition(to report: ReadinessReport) {
        guard report.isReady != lastReady else { return }
        lastReady = report.isReady
        var metadata: Logger.Metadata = [:]
        for outcome in report.outcomes { metadata[outcome.name] = outcome.failure ?? "ok" }
        logger.info(report.isReady ? "ready" : "not ready", metadata: metadata)
    }

    private static func run(_ checks: [ReadinessCheck], timeout: Duration) async -> ReadinessReport {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask {
                    do {
                        try await HandlerRace.run(
                            limit: timeout,
                            timeout: { ReadinessCheck.Failure("no answer within \(timeout.formattedSeconds)") },
                            check.run)
                        return (index, nil)
                    } catch let failure as ReadinessCheck.Failure {
                        return (index, failure.message)
                    } catch {
                        return (index, String(describing: error))
                    }
                }
            }
            var failures = [String?](repeating: nil, count: checks.count)
            for await (index, failure) in group { failures[index] = failure }
            return ReadinessReport(
                outcomes: zip(checks, failures).map { ReadinessReport.Outcome(name: $0.name, failure: $1) })
        }
    }
}
