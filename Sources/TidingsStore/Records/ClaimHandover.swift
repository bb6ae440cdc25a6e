/// Deliveries written already claimed by a fan-out worker of the resolving process, in the resolution chunk's
/// own transaction (``CampaignStore/appendDeliveries(messageID:resolver:deliveries:cursor:finished:leaseUntil:now:handover:)``):
/// the worker sends them without claiming them again or reading their installations a second time.
///
/// The rows are claimed as a worker's claim makes them (`claimed`, the worker, the lease, epoch 1), so everything
/// that releases, checks or completes claims treats them alike: a worker that dies leaves them to its lease or
/// its instance's timeout.
public struct ClaimHandover: Sendable, Equatable {
    /// The worker that holds the rows.
    public var worker: String
    /// Until when it holds them.
    public var leaseUntil: Int64

    /// The epoch of a handed-over row: what a first claim of a pending row gives.
    public static let epoch: Int64 = 1

    public init(worker: String, leaseUntil: Int64) {
        self.worker = worker
        self.leaseUntil = leaseUntil
    }
}
