import TidingsCampaigns
import TidingsStore

/// A `POST /v1/messages` body as accepted: validated, its payloads built and its message row made, nothing
/// stored yet. A real send stores it; a dry run (``MessageDryRun``) only reads the audience against it.
struct AcceptedMessage: Sendable {
    var request: MessageRequest
    var record: MessageRecord
    var plan: CampaignPlan
    /// The app's send settings as read at acceptance: its ceiling and frequency cap pace and limit the send.
    var settings: AppSendSettings
}
