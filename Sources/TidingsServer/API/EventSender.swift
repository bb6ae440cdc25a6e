import TidingsModel
import TidingsStore

/// The installation an app key's event batch comes from, as the request proved it: its id
/// (`X-Tidings-Installation`) and its secret. Only that installation's own events are admitted, so a holder
/// of the public app key cannot forge opens, dismissals or uninstalls for other devices.
///
/// Server keys have no sender: a backend may record events for any installation.
struct EventSender: Sendable {
    var installationID: String
    /// The user the installation is logged in as now.
    var userID: String?
    /// Whether the app requires a user token to act for a user: then an event names at most the installation's
    /// own user.
    var verifiesIdentity: Bool

    /// Admits `event` from this sender, or says why not.
    ///
    /// A `user_id` other than the installation's current user is dropped (the event is kept, unattributed)
    /// when the app verifies identities: the device's owner may not attribute its events to someone else, and
    /// an event recorded before a logout still counts for its message.
    /// - Throws: `installation_mismatch` for another installation's event, `server_only_type` for a type only
    ///   tidingsd records.
    func admit(_ event: inout TidingsEvent) throws(EventValidationError) {
        guard event.installationID == installationID else {
            throw EventValidationError(
                code: .installationMismatch, field: "installation_id",
                message:
                    "an app key's batch carries only the events of the installation it names (\(installationID))")
        }
        guard !event.type.isServerOnly else {
            throw EventValidationError(
                code: .serverOnlyType, field: "type",
                message: "\(event.type) events are recorded by tidingsd; app keys cannot send them")
        }
        if verifiesIdentity, let claimed = event.userID, claimed != userID { event.userID = nil }
    }
}
