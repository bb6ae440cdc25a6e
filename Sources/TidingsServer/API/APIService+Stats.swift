import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `GET /v1/campaigns/{campaign_id}/stats`: the funnel of one campaign, for server keys.
    func campaignStats(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let campaignID = try parameter(request, "campaign_id")
        let funnel = try store.funnel(appID: caller.appID, scope: .campaign(campaignID))
        let counts = try store.campaignCounts(appID: caller.appID, campaignID: campaignID)
        return json(Self.statsJSON(funnel, counts: counts, idKey: "campaign_id", id: campaignID))
    }

    /// `GET /v1/messages/{message_id}/stats`: the funnel of one message, for server keys. A message that
    /// tidingsd did not send (another vendor's, seen through the SDK's events) has events but no sends.
    func messageStats(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let messageID = try parameter(request, "message_id")
        let funnel = try store.funnel(appID: caller.appID, scope: .message(messageID))
        let counts = try store.messageCounts(messageID: messageID)
        return json(Self.statsJSON(funnel, counts: counts, idKey: "message_id", id: messageID))
    }

    /// The funnel as JSON: sends from `counts`, event counts per stage, distinct installations per stage,
    /// and rates.
    ///
    /// Rates divide distinct installations (an installation that opened twice counts once) by the
    /// distinct installations delivered to, and are null until something was delivered.
    static func statsJSON(_ funnel: EventFunnel, counts sends: MessageCounts, idKey: String, id: String) -> JSONValue {
        let stages: [(name: String, types: [EventType])] = [
            ("delivered", [.delivery]), ("opened", [.open]), ("dismissed", [.dismiss]), ("link_open", [.linkOpen]),
            ("deeplink_open", [.deeplinkOpen]), ("actions", [.action, .reply]),
        ]
        var counts: [String: JSONValue] = [
            "sent": .integer(Int64(sends.sent)), "failed": .integer(Int64(sends.failed)),
        ]
        var unique: [String: JSONValue] = [:]
        var uniqueCounts: [String: Int] = [:]
        for stage in stages {
            let events = stage.types.reduce(0) { $0 + (funnel.eventsByType[$1.rawValue] ?? 0) }
            let installations = stage.types.reduce(0) { $0 + (funnel.installationsByType[$1.rawValue] ?? 0) }
            counts[stage.name] = .integer(Int64(events))
            unique[stage.name] = .integer(Int64(installations))
            uniqueCounts[stage.name] = installations
        }
        let delivered = uniqueCounts["delivered"] ?? 0
        func rate(_ stage: String) -> JSONValue {
            guard delivered > 0 else { return .null }
            return .double((Double(uniqueCounts[stage] ?? 0) / Double(delivered) * 10_000).rounded() / 10_000)
        }
        let clicks = (uniqueCounts["link_open"] ?? 0) + (uniqueCounts["deeplink_open"] ?? 0)
        var object = counts
        object[idKey] = .string(id)
        object["unique_installations"] = .integer(Int64(funnel.uniqueInstallations))
        object["unique"] = .object(unique)
        object["rates"] = [
            "open_rate": rate("opened"), "dismiss_rate": rate("dismissed"), "action_rate": rate("actions"),
            "click_rate": delivered > 0
                ? .double((Double(clicks) / Double(delivered) * 10_000).rounded() / 10_000) : .null,
        ]
        return .object(object)
    }
}
