import TidingsStore

/// The `user.deleted` record an erasure sends every forwarder (docs/forwarding.md): an event-shaped object, so
/// every destination takes it as it takes events, that names the erased user for the destination to erase
/// its own copies.
enum ErasureRecord {
    static let type = "user.deleted"
    /// What `platform` says: the record comes from the server, not a device.
    static let platform = "server"

    /// The record of `notice`: `type` `user.deleted`, `event_id` the notice id, `user_id` the erased id,
    /// `value` its pseudonym, `occurred_at` and `received_at` the erasure time, and an empty `installation_id`.
    /// The filter's dropped fields leave it too; its event types and campaigns do not hold it back.
    static func event(_ notice: ErasureNotice, droppedFields: [String]) -> ForwardedEvent {
        ForwardedEvent(
            row: ForwardingEventRow(
                sequence: 0, receivedAt: notice.erasedAt, eventID: notice.id, type: type, occurredAt: notice.erasedAt,
                installationID: "", platform: platform, userID: notice.userID, value: notice.pseudonym),
            droppedFields: droppedFields)
    }
}
