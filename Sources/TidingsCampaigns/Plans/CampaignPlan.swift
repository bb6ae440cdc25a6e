import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// What resolving a message's audience needs, kept on the message (``MessageRecord/plan``) so any instance can
/// resume it after a restart: who (the target as it was given), when, and which variant and language keys
/// exist.
public struct CampaignPlan: Sendable, Hashable {
    /// The content keys of one variant (or of the message without variants, `id` nil).
    public struct Arm: Sendable, Hashable {
        public var id: String?
        var weight: Int
        /// `default` and the language tags; only `default` when not localized.
        public var languages: [String]
        public var isLocalized: Bool

        /// The key an installation with `languageTag` gets: the same rule as ``LocalizedContent/bestMatch(for:)``.
        func language(for languageTag: String?) -> String? {
            guard isLocalized else { return nil }
            let content = LocalizedContent(
                byKey: Dictionary(uniqueKeysWithValues: languages.map { ($0, JSONValue.null) }), isLocalized: true)
            return content.bestMatch(for: languageTag)
        }
    }

    var target: JSONValue
    var kind: MessageKind
    var environment: OutgoingPush.Environment?
    public var schedule: CampaignSchedule
    public var arms: [Arm]
    /// The control group's share, 0 to 1; only with variants.
    public var control: Double
    /// Seconds each delivery lives after its own due time (``MessageRequest/timeToLive``); nil when the message's
    /// expiry is every delivery's.
    var timeToLive: Int64?
    /// Whether variants are assigned per person and campaign (``VariantAssignment/variant(splitKey:subject:)``);
    /// false in the plans of messages accepted before, which keep assigning per message and installation.
    var splitsByPerson: Bool
    public var conversion: ConversionGoal?
    /// A split test that picks its winner: its variants go to the test share only.
    public var winner: WinnerRule?
    /// A split test's follow-up: the winner, to everyone but the test share and the control group.
    public var followUp: WinnerFollowUp?

    public var hasVariants: Bool { arms.first?.id != nil }

    init(
        target: JSONValue, kind: MessageKind, environment: OutgoingPush.Environment?, schedule: CampaignSchedule,
        arms: [Arm], control: Double, timeToLive: Int64? = nil, splitsByPerson: Bool = true,
        conversion: ConversionGoal? = nil, winner: WinnerRule? = nil, followUp: WinnerFollowUp? = nil
    ) {
        self.winner = winner
        self.followUp = followUp
        self.timeToLive = timeToLive
        self.target = target
        self.kind = kind
        self.environment = environment
        self.schedule = schedule
        self.arms = arms
        self.control = control
        self.splitsByPerson = splitsByPerson
        self.conversion = conversion
    }

    /// The plan of an accepted request.
    public init(request: MessageRequest) {
        func arm(_ id: String?, _ weight: Int, _ content: LocalizedContent) -> Arm {
            Arm(id: id, weight: weight, languages: content.byKey.keys.sorted(), isLocalized: content.isLocalized)
        }
        self.init(
            target: request.targetJSON, kind: request.kind, environment: request.environment,
            schedule: request.schedule,
            arms: request.variants.isEmpty
                ? [arm(nil, 1, request.localizedContent)] : request.variants.map { arm($0.id, $0.weight, $0.content) },
            control: request.control, timeToLive: request.timeToLive, conversion: request.conversion,
            winner: request.winner)
    }

    /// The schedule as the API shows it.
    public var scheduleJSON: JSONValue {
        switch schedule {
        case .now: ["type": "now"]
        case .at(let milliseconds): ["type": "send_at", "send_at": .integer(milliseconds)]
        case .localTime(let time, let fallback, let sendPast):
            [
                "type": "local_time", "local_time": .string(time.description),
                "fallback_time_zone": fallback.map(JSONValue.string) ?? .null,
                "if_past": sendPast ? "send_now" : "skip",
            ]
        }
    }

    var assignment: VariantAssignment {
        VariantAssignment(variants: arms.map { ($0.id ?? "", $0.weight) }, control: control)
    }

    var json: JSONValue {
        var scheduleJSON: [String: JSONValue]
        switch schedule {
        case .now: scheduleJSON = ["type": "now"]
        case .at(let milliseconds): scheduleJSON = ["type": "at", "at": .integer(milliseconds)]
        case .localTime(let time, let fallback, let sendPast):
            scheduleJSON = [
                "type": "local_time", "time": .string(time.description), "send_past": .bool(sendPast),
                "fallback_time_zone": fallback.map(JSONValue.string) ?? .null,
            ]
        }
        return [
            "target": target, "kind": .string(kind.rawValue),
            "environment": environment.map { .string($0.rawValue) } ?? .null, "schedule": .object(scheduleJSON),
            "control": .double(control), "ttl": timeToLive.map(JSONValue.integer) ?? .null,
            "split": .string(splitsByPerson ? Self.personSplit : "installation"),
            "conversion": conversion?.json ?? .null, "winner": winner?.json ?? .null,
            "follow_up": followUp?.json ?? .null,
            "arms": .array(
                arms.map { arm in
                    [
                        "id": arm.id.map(JSONValue.string) ?? .null, "weight": .integer(Int64(arm.weight)),
                        "languages": .array(arm.languages.map(JSONValue.string)), "localized": .bool(arm.isLocalized),
                    ]
                }),
        ]
    }

    public func encoded() -> String { (try? json.serializedString(sortedKeys: true)) ?? "{}" }

    /// Reads a plan ``encoded()`` wrote; nil when it cannot (a message from a newer tidingsd).
    public static func decode(_ text: String?) -> CampaignPlan? {
        guard let text, let object = (try? JSONValue.parse(text))?.objectValue,
            let target = object["target"], let kind = object["kind"]?.stringValue.flatMap(MessageKind.init(rawValue:)),
            let scheduleObject = object["schedule"]?.objectValue, let armsArray = object["arms"]?.arrayValue
        else { return nil }
        let schedule: CampaignSchedule
        switch scheduleObject["type"]?.stringValue {
        case "now": schedule = .now
        case "at":
            guard let at = scheduleObject["at"]?.integerValue else { return nil }
            schedule = .at(at)
        case "local_time":
            guard let time = scheduleObject["time"]?.stringValue.flatMap(LocalDateTime.init) else { return nil }
            schedule = .localTime(
                time, fallbackTimeZone: scheduleObject["fallback_time_zone"]?.stringValue,
                sendPast: scheduleObject["send_past"] == .bool(true))
        default: return nil
        }
        var arms: [Arm] = []
        for value in armsArray {
            guard let weight = value["weight"]?.integerValue, let languages = value["languages"]?.arrayValue else {
                return nil
            }
            arms.append(
                Arm(
                    id: value["id"]?.stringValue, weight: Int(weight), languages: languages.compactMap(\.stringValue),
                    isLocalized: value["localized"] == .bool(true)))
        }
        let control: Double =
            switch object["control"] {
            case .double(let value)?: value
            case .integer(let value)?: Double(value)
            default: 0
            }
        return CampaignPlan(
            target: target, kind: kind,
            environment: object["environment"]?.stringValue.flatMap(OutgoingPush.Environment.init(rawValue:)),
            schedule: schedule, arms: arms, control: control, timeToLive: object["ttl"]?.integerValue,
            splitsByPerson: object["split"]?.stringValue == Self.personSplit,
            conversion: ConversionGoal.decode(object["conversion"]), winner: WinnerRule.decode(object["winner"]),
            followUp: WinnerFollowUp.decode(object["follow_up"]))
    }

    /// The `split` of plans that assign by person and campaign.
    static let personSplit = "person"
}
