/// What event forwarding keeps in the store: each destination's settings, state and cursor, its lease, and
/// its dead-letter list.
///
/// The cursor moves only forward and only for the process that holds the destination's lease, so two
/// `tidingsd` processes on one PostgreSQL database never send the same destination's events side by side.
/// ``Store`` refines this protocol; both backends implement it.
public protocol ForwardingStore: Sendable {
    /// Adds a destination.
    /// - Throws: ``StoreError/Code/notFound`` for an unknown app, ``StoreError/Code/conflict`` for a taken id.
    func createForwarder(_ forwarder: ForwarderRecord) throws
    /// One destination of the app; nil when it has none by that id.
    func forwarder(appID: String, id: String) throws -> ForwarderRecord?
    /// The destinations of `appID`, or of every app when nil, oldest first.
    func forwarders(appID: String?) throws -> [ForwarderRecord]
    /// Pauses or resumes a destination and returns it. - Throws: ``StoreError/Code/notFound``.
    @discardableResult
    func setForwarderState(appID: String, id: String, state: ForwarderRecord.State) throws -> ForwarderRecord
    /// Removes a destination with its dead letters and its `user.deleted` notices not yet delivered; false when
    /// the app has no such destination.
    @discardableResult
    func removeForwarder(appID: String, id: String) throws -> Bool

    /// Takes or extends the destination's lease for `owner` until `until` when it is free, expired or
    /// already `owner`'s; false when another process holds it.
    func acquireForwarderLease(id: String, owner: String, now: Int64, until: Int64) throws -> Bool
    /// Gives the lease up (at shutdown), so another process may take over at once.
    func releaseForwarderLease(id: String, owner: String) throws

    /// Moves the cursor forward to `sequence` and records a success at `now` (clearing the failure) when
    /// `owner` holds the lease; false (and nothing changed) otherwise. A cursor never moves back.
    @discardableResult
    func advanceForwarderCursor(id: String, owner: String, to sequence: Int64, now: Int64) throws -> Bool
    /// Records a failed send: the failure start (kept when already failing) and its message.
    func recordForwarderFailure(id: String, at: Int64, message: String) throws

    /// Starts replaying `[since, until)` of `occurred_at` to the destination (replacing a running backfill)
    /// and returns it. - Throws: ``StoreError/Code/notFound``.
    @discardableResult
    func startForwarderBackfill(appID: String, id: String, since: Int64, until: Int64) throws -> ForwarderRecord
    /// Moves the backfill's cursor to `sequence`, or ends the backfill when nil; false when `owner` does not
    /// hold the lease.
    @discardableResult
    func advanceForwarderBackfill(id: String, owner: String, to sequence: Int64?) throws -> Bool

    /// Parks a refused batch and moves the live cursor past it (when `advancesCursor`) in one transaction,
    /// so the batch is neither lost nor sent twice; false when `owner` does not hold the lease.
    @discardableResult
    func parkDeadLetter(_ letter: DeadLetterRecord, owner: String, advancesCursor: Bool) throws -> Bool
    /// Parks the refused batches of one page (sent side by side) and moves the live cursor forward to
    /// `sequence` (when given) in one transaction; false (and nothing changed) when `owner` does not hold the
    /// lease. - Throws: ``StoreError/Code/conflict`` when a letter is not `forwarderID`'s.
    @discardableResult
    func parkDeadLetters(
        _ letters: [DeadLetterRecord], forwarderID: String, owner: String, movingCursorTo sequence: Int64?
    )
        throws -> Bool
    /// The destination's dead letters, oldest first.
    func deadLetters(appID: String, forwarderID: String) throws -> [DeadLetterRecord]
    /// Marks the given dead letters (every one when nil) for the worker to send again; returns how many.
    func requestDeadLetterReplay(appID: String, forwarderID: String, ids: [String]?, now: Int64) throws -> Int
    /// Records the outcome of a replay: removed when it went through, parked again with the new error when not.
    func finishDeadLetterReplay(id: String, delivered: Bool, status: Int?, error: String, now: Int64) throws
    /// Deletes the given dead letters (every one when nil); returns how many.
    func purgeDeadLetters(appID: String, forwarderID: String, ids: [String]?) throws -> Int

    /// The app's events to forward after `query.afterSequence`, in sequence order, as their stored columns,
    /// with how far the read looked (``ForwardingEventPage/scannedThrough``). Only committed events are read;
    /// see ``eventVisibilityDelay`` for the ones a later read may still find below that point.
    func forwardingEvents(appID: String, query: ForwardingEventQuery) throws -> ForwardingEventPage

    /// The newest event's sequence number of the app (0 when it has none): where a new destination that
    /// starts with new events puts its cursor.
    func latestEventSequence(appID: String) throws -> Int64
    /// How many events of the app come after `sequence`, and when the oldest of them was received.
    func eventBacklog(appID: String, afterSequence: Int64) throws -> (count: Int, oldestReceivedAt: Int64?)
    /// How long after its receipt an event may still become visible below a sequence number already read,
    /// in milliseconds: 0 where writers commit in sequence order (SQLite's single writer), more where
    /// concurrent transactions commit out of order (PostgreSQL). The worker forwards no event younger.
    var eventVisibilityDelay: Int64 { get }
}
