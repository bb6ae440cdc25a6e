import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `GET /v1/campaigns/{campaign_id}/stats`: the funnel of one campaign, for server keys.
    func campaignStats(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let campaignID = try parameter(request, "campaign_id")
        // The campaign's messages say which of their buttons open the app, each for its own events.
        var openingActions: [String: Set<String>] = [:]
        var query = MessageListQuery(campaignID: campaignID, limit: 500)
        while true {
            let page = try store.messages(appID: caller.appID, query: query)
            for message in page { openingActions[message.id] = message.openingActionIDs }
            guard page.count == query.limit, let last = page.last else { break }
            query.after = (last.createdAt, last.id)
        }
        let funnel = try store.funnel(
            appID: caller.appID, scope: .campaign(campaignID), openingActions: openingActions)
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
        let opening = [message.id: message.openingActionIDs]
        let funnel = try store.funnel(appID: message.appID, scope: .message(message.id), openingActions: opening)
        guard case .object(var object) = Self.statsJSON(funnel, counts: counts, idKey: "message_id", id: message.id)
        else { return .null }
        guard let plan = CampaignPlan.decode(message.plan) else { return .object(object) }
        let conversions = try plan.conversion.map { goal in
            try store.conversions(
                appID: message.appID, messageID: message.id, event: goal.event,
                withinMilliseconds: goal.withinSeconds * 1000, from: goal.from, openingActions: opening)
        }
        if let goal = plan.conversion, let conversions {
            let sent = conversions.filter { $0.key != CampaignVariant.controlID }.values.reduce(ConversionCount()) {
                ConversionCount(recipients: $0.recipients + $1.recipients, converted: $0.converted + $1.converted)
            }
            guard case .object(var entry) = goal.json else { return .null }
            entry.merge(Self.conversionJSON(sent, reference: nil)) { _, new in new }
            object["conversion"] = .object(entry)
        }
        if plan.hasVariants {
            let groups = try store.messageCounts(messageID: message.id, by: .variant)
            let funnels = try store.funnel(
                appID: message.appID, messageID: message.id, by: .variant, openingActions: opening)
            var ids = plan.arms.compactMap(\.id)
            if plan.control > 0 { ids.append(CampaignVariant.controlID) }
            let first = ids.first.flatMap { funnels[$0] }
            // Conversions are compared with the control group, which got nothing, when there is one.
            let referenceID = plan.control > 0 ? CampaignVariant.controlID : ids[0]
            let reference = conversions.map { (id: referenceID, count: $0[referenceID] ?? ConversionCount()) }
            object["variants"] = .array(
                ids.map { id in
                    let variantFunnel = funnels[id] ?? EventFunnel()
                    var entry = Self.groupJSON(
                        variantFunnel, counts: groups[id] ?? MessageCounts(), key: "variant", id: id)
                    if let conversions {
                        entry["conversions"] = .object(
                            Self.conversionJSON(
                                conversions[id] ?? ConversionCount(), reference: id == referenceID ? nil : reference))
                    }
                    if id != ids.first, id != CampaignVariant.controlID,
                        let difference = ProportionDifference(
                            successesA: first?.installations(.opened) ?? 0,
                            trialsA: first?.installations(.delivered) ?? 0,
                            successesB: variantFunnel.installations(.opened),
                            trialsB: variantFunnel.installations(.delivered))
                    {
                        entry["open_rate_difference"] = Self.differenceJSON(difference, versus: ids[0])
                    }
                    return .object(entry)
                })
        }
        if plan.arms.contains(where: \.isLocalized) {
            let groups = try store.messageCounts(messageID: message.id, by: .language)
            let funnels = try store.funnel(
                appID: message.appID, messageID: message.id, by: .language, openingActions: opening)
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

    static func rounded(_ value: Double) -> Double { value.roundedToFourPlaces }

    /// One arm's conversions: recipients, converted, the rate with its 95% Wilson interval (null without
    /// recipients) and, against `reference`, the difference of rates with its 95% interval.
    static func conversionJSON(_ count: ConversionCount, reference: (id: String, count: ConversionCount)?)
        -> [String: JSONValue]
    {
        var object: [String: JSONValue] = [
            "recipients": .integer(Int64(count.recipients)), "converted": .integer(Int64(count.converted)),
            "rate": .null, "ci95_low": .null, "ci95_high": .null,
        ]
        if let interval = WilsonInterval(successes: count.converted, trials: count.recipients) {
            object["rate"] = .double(rounded(interval.rate))
            object["ci95_low"] = .double(rounded(interval.lower))
            object["ci95_high"] = .double(rounded(interval.upper))
        }
        if let reference,
            let difference = ProportionDifference(
                successesA: reference.count.converted, trialsA: reference.count.recipients,
                successesB: count.converted, trialsB: count.recipients)
        {
            object["difference"] = differenceJSON(difference, versus: reference.id)
        }
        return object
    }

    static func differenceJSON(_ difference: ProportionDifference, versus: String) -> JSONValue {
        [
            "versus": .string(versus), "difference": .double(rounded(difference.difference)),
            "ci95_low": .double(rounded(difference.lower)), "ci95_high": .double(rounded(difference.upper)),
            "z": .double(rounded(difference.z)), "significant": .bool(difference.isSignificant),
        ]
    }

    /// The funnel as JSON: sends from `counts`, event counts per stage, distinct installations per stage,
    /// and rates.
    ///
    /// The stages are ``FunnelStage``'s: `delivered` takes in every installation that interacted (an open proves
    /// a delivery the extension did not record), `opened` every one that opened the app, through the body or a
    /// button that opens it, and `actions` every one that tapped a button, opening the app or not. Each rate
    /// divides distinct installations (an installation that opened twice counts once) by the distinct
    /// installations delivered to, so none passes 1, and is null until something was delivered. Event counts
    /// are raw: `opened` counts `open` events and the `action` events of buttons that open the app.
    static func statsJSON(_ funnel: EventFunnel, counts sends: MessageCounts, idKey: String, id: String) -> JSONValue {
        func events(_ types: [EventType]) -> Int { types.reduce(0) { $0 + (funnel.eventsByType[$1.rawValue] ?? 0) } }
        func installations(_ type: EventType) -> Int { funnel.installationsByType[type.rawValue] ?? 0 }
        let stages: [(name: String, events: Int, installations: Int)] = [
            ("delivered", events([.delivery]), funnel.installations(.delivered)),
            ("opened", events([.open]) + funnel.openingActionEvents, funnel.installations(.opened)),
            ("dismissed", events([.dismiss]), funnel.installations(.dismissed)),
            ("link_open", events([.linkOpen]), installations(.linkOpen)),
            ("deeplink_open", events([.deeplinkOpen]), installations(.deeplinkOpen)),
            ("actions", events([.action, .reply]), funnel.installations(.actions)),
        ]
        var object: [String: JSONValue] = [
            "sent": .integer(Int64(sends.sent)), "failed": .integer(Int64(sends.failed)),
        ]
        var unique: [String: JSONValue] = [:]
        for stage in stages {
            object[stage.name] = .integer(Int64(stage.events))
            unique[stage.name] = .integer(Int64(stage.installations))
        }
        let delivered = funnel.installations(.delivered)
        func rate(_ stage: FunnelStage) -> JSONValue {
            guard delivered > 0 else { return .null }
            return .double(rounded(Double(funnel.installations(stage)) / Double(delivered)))
        }
        object[idKey] = .string(id)
        object["unique_installations"] = .integer(Int64(funnel.uniqueInstallations))
        object["unique"] = .object(unique)
        object["rates"] = [
            "open_rate": rate(.opened), "dismiss_rate": rate(.dismissed), "action_rate": rate(.actions),
            "click_rate": rate(.clicked),
        ]
        return .object(object)
    }
}
