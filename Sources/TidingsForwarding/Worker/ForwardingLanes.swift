import TidingsModel
import TidingsStore

/// Splits a page of events among batches that go out side by side, each installation's events in one batch.
///
/// A destination with a backlog takes several batches at once (``ForwardingWorker/Configuration/batchesInFlight``),
/// so its round trips overlap. Order per installation still holds: every event of an installation lands in
/// the same batch, in sequence order, and the next page starts only when every batch of this one went
/// through or was parked. Events of different installations may arrive in another order than they were
/// stored.
public enum ForwardingLanes {
    /// The batches of one page and where the cursor moves once they are all handled.
    public struct Plan: Sendable, Hashable {
        /// Non-empty batches, each in sequence order and at most the batch size, that may be sent side by side.
        public var batches: [[ForwardedEvent]]
        /// The sequence number the cursor moves to: the page's end, or the last event before the one that
        /// would have overfilled its batch.
        public var through: Int64
        /// Whether nothing more was stored after `through` when the page was read.
        public var reachedEnd: Bool
    }

    /// Splits `page` into at most `lanes` batches of at most `batchSize` events each, by installation, after
    /// `filter`. When an installation's batch is full the page is cut before that event: the rest comes
    /// with the next page.
    public static func split(
        _ page: ForwardingEventPage, filter: ForwarderRecord.Filter, lanes: Int, batchSize: Int
    ) -> Plan {
        let forwarded = ForwardingFilter.forwarded(page.rows, filter)
        let lanes = max(1, lanes)
        let batchSize = max(1, batchSize)
        if lanes == 1 || forwarded.count <= batchSize {
            // One batch holds it all: the same batch a single sender would send.
            if forwarded.count <= batchSize {
                return Plan(
                    batches: forwarded.isEmpty ? [] : [forwarded], through: page.scannedThrough,
                    reachedEnd: page.reachedEnd)
            }
            let cut = forwarded[batchSize].row.sequence - 1
            return Plan(batches: [Array(forwarded.prefix(batchSize))], through: cut, reachedEnd: false)
        }
        var batches = [[ForwardedEvent]](repeating: [], count: lanes)
        for event in forwarded {
            let lane = Int(laneHash(event.row.installationID) % UInt64(lanes))
            guard batches[lane].count < batchSize else {
                // Everything before this event is planned; the cursor stops just short of it.
                return Plan(
                    batches: batches.filter { !$0.isEmpty }, through: event.row.sequence - 1, reachedEnd: false)
            }
            batches[lane].append(event)
        }
        return Plan(
            batches: batches.filter { !$0.isEmpty }, through: page.scannedThrough, reachedEnd: page.reachedEnd)
    }

    /// FNV-1a over the installation id: stable and cheap, so a page's lanes do not depend on the process.
    static func laneHash(_ installationID: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in installationID.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
