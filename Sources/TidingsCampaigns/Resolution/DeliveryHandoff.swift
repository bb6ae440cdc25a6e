import TidingsModel
import TidingsStore

/// Passes a resolving message's deliveries from the process's resolver straight to its fan-out worker: the
/// resolver writes a chunk's due deliveries already claimed by the worker (``ClaimHandover``), in the chunk's
/// own transaction, and leaves them here with the installations it just read, so the worker neither claims them
/// nor reads their installations again.
///
/// The worker says when it wants a chunk: its queue runs low and the store's claim found less than it asked
/// for. At most one chunk waits here, so memory stays bounded by the worker's queue. While the worker does not
/// want one, the resolver waits up to ``patience`` and then writes the chunk pending as before, for any worker's
/// fair-share claim; it does not wait while another message's resolution is due. While other instances of a
/// cluster are live the patience is zero, so their workers keep sharing the message (``setPatience(_:)``).
public final class DeliveryHandoff: Sendable {
    /// A chunk's deliveries, claimed by ``worker`` until `leaseUntil`, and the installations they were decided on.
    public struct Batch: Sendable {
        public var deliveries: [MessageDelivery]
        public var installations: [Installation]
        public var leaseUntil: Int64
    }

    /// The worker the rows are claimed for.
    public let worker: String
    /// How long the resolver waits for the worker to want a chunk before writing it pending.
    public var patience: Duration { state.withLock { $0.patience } }
    /// How long the worker holds a chunk handed to it (its claims' lease).
    public let lease: Duration
    private let state: LockedBox<State>

    private struct State {
        /// Wakes the worker when a chunk was left for it; set while the worker's loop runs and takes what is
        /// left here.
        var wake: (@Sendable () -> Void)?
        var open: Bool { wake != nil }
        /// The worker asked for a chunk at its last refill.
        var wanted = false
        /// The resolver is writing a chunk for the worker.
        var reserved = false
        var waiting: Batch?
        var patience: Duration
        var beforeEachMessage: (@Sendable () -> Void)?
    }

    public init(worker: String, patience: Duration, lease: Duration) {
        self.worker = worker
        self.lease = lease
        state = LockedBox(State(patience: patience))
    }

    /// Changes how long the resolver waits from its next chunk on: a cluster's instance waits only while no
    /// other instance is live (``FanoutWorker/otherInstancesLive(_:)``).
    public func setPatience(_ patience: Duration) {
        state.withLock { $0.patience = patience }
    }

    /// Runs `refresh` before the resolver resolves each message, so the patience it uses is current (a cluster
    /// counts its live instances then: ``setPatience(_:)``).
    public func beforeEachMessage(_ refresh: @escaping @Sendable () -> Void) {
        state.withLock { $0.beforeEachMessage = refresh }
    }

    // MARK: The worker's side

    /// The worker's loop starts: chunks may be handed to it, and `wake` is called when one was.
    public func open(wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// Takes the chunk left for the worker, if any, and says whether it wants another.
    public func take(wantingMore: Bool) -> Batch? {
        state.withLock { state in
            state.wanted = wantingMore
            defer { state.waiting = nil }
            return state.waiting
        }
    }

    /// The worker stops: nothing more is handed to it, and the chunk left, if any, is returned for it to hand
    /// back.
    public func close() -> Batch? {
        state.withLock { state in
            state.wake = nil
            state.wanted = false
            defer { state.waiting = nil }
            return state.waiting
        }
    }

    // MARK: The resolver's side

    /// The resolver claimed a message and is about to resolve it.
    func messageClaimed() {
        state.withLock { $0.beforeEachMessage }?()
    }

    /// Waits, up to ``patience`` and while `stillWorthWaiting` holds, for the worker to want a chunk, and
    /// reserves it: true means the resolver writes its next chunk claimed for the worker and then calls
    /// ``put(_:)`` or ``cancelReservation()``.
    func reserve(stillWorthWaiting: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + state.withLock { $0.patience }
        var checkedOthers = false
        while true {
            let outcome = state.withLock { state -> Bool? in
                guard state.open, !state.reserved, state.waiting == nil else { return state.open ? nil : false }
                guard state.wanted else { return nil }
                state.reserved = true
                state.wanted = false
                return true
            }
            if let outcome { return outcome }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            // Checked once per wait: another message whose resolution is due must not wait behind this one.
            if !checkedOthers {
                checkedOthers = true
                guard try stillWorthWaiting() else { return false }
            }
            try await Task.sleep(for: Self.pollInterval)
        }
    }

    /// Leaves a chunk for the worker and wakes it; false when the worker stopped meanwhile (the rows are then
    /// the resolver's to hand back).
    func put(_ batch: Batch) -> Bool {
        let wake = state.withLock { state -> (@Sendable () -> Void)?? in
            state.reserved = false
            guard state.open else { return nil }
            state.waiting = batch
            return state.wake
        }
        guard let wake else { return false }
        wake?()
        return true
    }

    /// The reserved chunk will not come (nothing in it was due, or the message is no longer the resolver's):
    /// the worker still wants one.
    func cancelReservation() {
        state.withLock { state in
            state.reserved = false
            state.wanted = state.open
        }
    }

    /// How often a waiting resolver looks whether the worker wants a chunk: a chunk takes the worker tens of
    /// milliseconds to send.
    static let pollInterval: Duration = .milliseconds(1)
}
