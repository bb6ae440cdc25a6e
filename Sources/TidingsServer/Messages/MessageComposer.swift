import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Turns a `POST /v1/messages` body into a message ready to store: validated, its payloads built, its row made.
/// The API's sends and dry runs and a journey's send steps all go through it, so a step's message is checked
/// and built exactly as a campaign's.
struct MessageComposer: Sendable {
    let store: any Store
    let defaultTimeToLive: Duration
    let insecureMediaHosts: Set<String>

    init(store: any Store, configuration: TidingsAPI.Configuration) {
        self.store = store
        defaultTimeToLive = configuration.defaultTimeToLive
        insecureMediaHosts = configuration.insecureMediaHosts
    }

    /// - Throws: ``MessageError`` for the body; ``StoreError`` with `notFound` for an unknown app.
    func compose(_ body: [String: JSONValue], appID: String, messageID: String, now date: Date) throws
        -> AcceptedMessage
    {
        let settings = try store.sendSettings(appID: appID)
        // The app's own default time to live, when it set one, replaces the server's.
        let messageRequest = try MessageRequest.parse(
            body, now: date, defaultTimeToLive: settings.defaultTTLSeconds.map { .seconds($0) } ?? defaultTimeToLive)
        let payloads = try CampaignPayloads.build(
            messageRequest, messageID: messageID, builder: MessagePayloadBuilder(insecureMediaHosts: insecureMediaHosts)
        )
        guard let app = try store.app(id: appID) else {
            throw StoreError(code: .notFound, message: "there is no app \(appID)")
        }
        let resolveAt = messageRequest.schedule.resolveAt(now: date).millisecondsSince1970
        let plan = CampaignPlan(request: messageRequest)
        let record = MessageRecord(
            id: messageID, appID: appID, state: resolveAt <= date.millisecondsSince1970 ? .resolving : .scheduled,
            kind: messageRequest.kind, messageType: messageRequest.messageType, campaignID: messageRequest.campaignID,
            topic: app.bundleID, payload: payloads.main, priority: messageRequest.priority,
            expiresAt: messageRequest.expiration?.millisecondsSince1970, collapseID: messageRequest.collapseID,
            nightPolicy: messageRequest.nightPolicy, createdAt: date.millisecondsSince1970, plan: plan.encoded(),
            resolveAt: resolveAt, payloadVariants: payloads.variants, ratePerSecond: messageRequest.ratePerSecond)
        return AcceptedMessage(request: messageRequest, record: record, plan: plan, settings: settings)
    }
}
