import Foundation
import TidingsModel
import TidingsStore

/// Whether this instance is the one that runs scheduled work (uninstall checks, event retention), so that
/// each runs once however many instances share the store.
///
/// Three kinds:
/// - ``always``: a SQLite store's sender (the process holding `sender.lock`) is the only one there can be.
/// - ``never``: a second process on a SQLite store, which another process sends from.
/// - ``lease(store:holder:duration:clock:)``: instances on PostgreSQL contend for the store's `scheduler`
///   lease (``ClusterStore/acquireLease(name:holder:duration:now:)``), whose expiry the store measures on its
///   own clock (PostgreSQL's), never an instance's. The holder renews it with every heartbeat;
///   when it stops cleanly it gives the lease up and another instance takes it at the next heartbeat, and
///   when it dies the lease runs out (or its heartbeat goes silent) and another takes it then.
///
/// A holder counts itself leader only until a heartbeat interval before its lease would run out at the
/// store, so two instances never both believe they lead, even when renewals fail.
public final class SchedulerLeadership: Sendable {
    /// The lease's name in the store.
    public static let leaseName = "scheduler"

    private enum Kind: Sendable {
        case fixed(Bool)
        case lease(store: any Store, holder: String, duration: Duration, clock: any TidingsClock)
    }

    private let kind: Kind
    /// Until when, on this process's monotonic clock, the lease is safely ours; nil: not the leader.
    private let leaderUntil = LockedBox<ContinuousClock.Instant?>(nil)
    /// How long before the store's expiry this instance stops counting itself leader.
    private let margin: Duration

    private init(kind: Kind, margin: Duration = .zero) {
        self.kind = kind
        self.margin = margin
    }

    /// The only instance there can be: always the leader.
    public static let always = SchedulerLeadership(kind: .fixed(true))
    /// Never the leader.
    public static let never = SchedulerLeadership(kind: .fixed(false))

    /// Contends for the store's scheduler lease as `holder`, taking it for `duration` at each renewal.
    /// - Parameter renewalInterval: how often ``renew()`` is called; the lease counts as ours only until this
    ///   long before it would expire.
    public static func lease(
        store: any Store, holder: String, duration: Duration, renewalInterval: Duration,
        clock: any TidingsClock = SystemClock()
    ) -> SchedulerLeadership {
        SchedulerLeadership(
            kind: .lease(store: store, holder: holder, duration: duration, clock: clock),
            margin: min(renewalInterval, duration / 2))
    }

    /// Whether scheduled work may run here now.
    public var isLeader: Bool {
        switch kind {
        case .fixed(let value): value
        case .lease: leaderUntil.withLock { $0.map { ContinuousClock.now < $0 } ?? false }
        }
    }

    /// Takes or extends the lease (nothing to do for a fixed leadership).
    /// - Returns: whether this instance leads now.
    /// - Throws: the store's error; this instance then leads only until its last lease runs out.
    @discardableResult
    public func renew() throws -> Bool {
        guard case .lease(let store, let holder, let duration, let clock) = kind else { return isLeader }
        let started = ContinuousClock.now
        let held = try store.acquireLease(
            name: Self.leaseName, holder: holder, duration: Int64(duration.seconds * 1000),
            now: clock.now.millisecondsSince1970)
        leaderUntil.withLock { $0 = held ? started + duration - margin : nil }
        return held
    }

    /// Gives the lease up so that another instance takes it at once (nothing for a fixed leadership).
    public func resign() throws {
        guard case .lease(let store, let holder, _, _) = kind else { return }
        leaderUntil.withLock { $0 = nil }
        try store.releaseLease(name: Self.leaseName, holder: holder)
    }
}
