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
        let counts = try store.messageCounts(messageID: messageID)
        if let message = try store.message(appID: caller.appID, messageID: messageID) {
            return json(try funnelJSON(message: message, counts: counts))
        }
        let funnel = try store.funnel(appID: caller.appID, scope: .message(messageID))
        return json(Self.statsJSON(funnel, counts: counts, idKey: "message_id", id: messageID))
    }

    /// A message's funnel, with one per variant (each compared with the first) and one per language when the
    /// message has them.
    func funnelJSON(message: MessageRecord, counts: MessageCounts) throws -> JSONValue {
        let funnel = try store.funnel(appID: message.appID, scope: .message(message.id))
        guard case .object(var object) = Self.statsJSON(funnel, counts: counts, idKey: "message_id", id: message.id)
        else { return .null }
        guard let plan = CampaignPlan.decode(message.plan) else { return .object(object) }
        if plan.hasVariants {
            let groups = try store.messageCounts(messageID: message.id, by: .variant)
            let funnels = try store.funnel(appID: message.appID, messageID: message.id, by: .variant)
            var ids = plan.arms.compactMap(\.id)
            if plan.control > 0 { ids.append(CampaignVariant.controlID) }
            let first = ids.first.flatMap { funnels[$0] }
            object["variants"] = .array(
                ids.map { id in
                    let variantFunnel = funnels[id] ?? EventFunnel()
                    var entry = Self.groupJSON(
                        variantFunnel, counts: groups[id] ?? MessageCounts(), key: "variant", id: id)
                    if id != ids.first, id != CampaignVariant.controlID,
                        let difference = ProportionDifference(
                            successesA: first?.installationsByType[EventType.open.rawValue] ?? 0,
                            trialsA: first?.installationsByType[EventType.delivery.rawValue] ?? 0,
                            successesB: variantFunnel.installationsByType[EventType.open.rawValue] ?? 0,
                            trialsB: variantFunnel.installationsByType[EventType.delivery.rawValue] ?? 0)
                    {
                        entry["open_rate_difference"] = [
                            "versus": .string(ids[0]), "difference": .double(Self.rounded(difference.difference)),
                            "ci95_low": .double(Self.rounded(difference.lower)),
                            "ci95_high": .double(Self.rounded(difference.upper)),
                            "z": .double(Self.rounded(difference.z)), "significant": .bool(difference.isSignificant),
                        ]
                    }
                    return .object(entry)
                })
        }
        if plan.arms.contains(where: \.isLocalized) {
            let groups = try store.messageCounts(messageID: message.id, by: .language)
            let funnels = try store.funnel(appID: message.appID, messageID: message.id, by: .language)
            object["languages"] = .array(
                Set(groups.keys).union(funnels.keys).sorted().map { language in
                    .object(
                        Self.groupJSON(
                            funnels[language] ?? EventFunnel(), counts: groups[language] ?? MessageCounts(),
                            key: "language", id: language))
                })
        }
        return .object(object)
    }

    /// One variant's or language's funnel: the same figures as the message's.
    static func groupJSON(_ funnel: EventFunnel, counts: MessageCounts, key: String, id: String) -> [String: JSONValue]
    {
        guard case .object(var object) = statsJSON(funnel, counts: counts, idKey: key, id: id) else { return [:] }
        object["targets"] = .integer(Int64(counts.targets))
        object["skipped"] = .integer(Int64(counts.skipped))
        return object
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

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
