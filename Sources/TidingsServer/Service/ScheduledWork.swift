import Foundation
import TidingsModel

/// tidingsd's periodic jobs (uninstall checks, event retention), each run once per interval across every
/// instance sharing the store: only while this instance is the leader (``SchedulerLeadership``).
///
/// ```swift
/// let work = ScheduledWork(
///     leadership: .always,
///     jobs: [ScheduledWork.Job(name: "event-retention", interval: .seconds(3600)) { try retention.run() }],
///     logger: logger)
/// work.start()
/// ```
///
/// A job's schedule is kept in memory: an instance that becomes leader runs every job at its first look, and
/// then once per interval. The jobs are therefore written to find their own due work in the store (the
/// uninstall checks read when each app's last check was made), so a hand-over repeats no work.
public final class ScheduledWork: Sendable {
    /// One periodic job.
    public struct Job: Sendable {
        public var name: String
        public var interval: Duration
        public var run: @Sendable () throws -> Void

        public init(name: String, interval: Duration, run: @escaping @Sendable () throws -> Void) {
            self.name = name
            self.interval = interval
            self.run = run
        }
    }

    public let leadership: SchedulerLeadership
    public let jobs: [Job]
    let tick: Duration
    let logger: Logger
    /// When each job (by index) last ran, on the monotonic clock.
    private let lastRun = LockedBox<[Int: ContinuousClock.Instant]>([:])
    private let task = LockedBox<Task<Void, Never>?>(nil)

    /// - Parameter tick: how often the jobs are looked at; a job runs at the first look after it is due.
    public init(leadership: SchedulerLeadership, jobs: [Job], tick: Duration = .seconds(1), logger: Logger) {
        self.leadership = leadership
        self.jobs = jobs
        self.tick = tick
        self.logger = logger
    }

    /// Runs the jobs that are due, when this instance leads; a failing job is logged and tried again at its
    /// next interval.
    /// - Returns: the names of the jobs run.
    @discardableResult
    public func runDue() -> [String] {
        guard leadership.isLeader else {
            // A later leadership starts afresh: every job runs at its first look.
            lastRun.withLock { $0.removeAll() }
            return []
        }
        var ran: [String] = []
        for (index, job) in jobs.enumerated() {
            let now = ContinuousClock.now
            if let last = lastRun.withLock({ $0[index] }), now < last + job.interval { continue }
            lastRun.withLock { $0[index] = now }
            do {
                try job.run()
            } catch {
                logger.error("scheduled job failed: \(error)", metadata: ["job": job.name])
            }
            ran.append(job.name)
        }
        return ran
    }

    /// Looks at the jobs now and then every tick until ``stop()``; nothing runs when there are no jobs.
    public func start() {
        guard !jobs.isEmpty else { return }
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                while !Task.isCancelled {
                    runDue()
                    do { try await Task.sleep(for: tick) } catch { return }
                }
            }
        }
    }

    /// Stops looking; a job running now finishes first.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
