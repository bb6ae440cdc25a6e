import Foundation
import Testing
import TidingsModel

@testable import TidingsCampaigns

/// What a journey definition reads as, and that the stored form (`json`) reads back to the same definition.
@Suite struct JourneyDefinitionParserTests {
    static func parse(_ value: JSONValue) throws -> JourneyDefinition {
        try JourneyDefinition.parse(value, checkMessage: { _ in [] }, checkAudience: { _ in nil })
    }

    /// The example of docs/journeys.md, read from the page so the page cannot drift from what is accepted.
    static func documentedExample() throws -> JSONValue {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/journeys.md")
        let page = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(page.range(of: "```json\n"))
        let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
        return try JSONValue.parse(String(page[start.upperBound..<end.lowerBound]))
    }

    @Test func theDocumentedExampleReadsAsItSays() throws {
        let definition = try Self.parse(try Self.documentedExample())
        #expect(definition.name == "Abandoned cart")
        #expect(definition.trigger == .event(JourneyEventMatch(type: "add_to_cart")))
        #expect(definition.entry == .onceEvery(days: 7))
        #expect(definition.exits == [JourneyEventMatch(type: "purchase")])
        #expect(definition.fallbackTimeZone == nil)
        #expect(definition.steps.map(\.id) == ["pause", "remind", "a_day", "vip", "offer", "last_call", "end"])
        #expect(definition.steps.map(\.typeName) == ["wait", "send", "wait", "branch", "send", "send", "exit"])
        #expect(definition.steps[0].kind == .wait(.duration(seconds: 3600)))
        #expect(
            definition.steps[1].kind
                == .send(message: ["content": ["title": "Still thinking about it?", "body": "Your cart is waiting."]]))
        #expect(definition.steps[2].kind == .wait(.duration(seconds: 86400)))
        #expect(
            definition.steps[3].kind
                == .branch(JourneyBranch(condition: .audience("tag:vip"), then: "offer", otherwise: "last_call")))
        #expect(definition.steps[4].next == "end")
        #expect(definition.steps[6].kind == .exit)
        #expect(try Self.parse(definition.json) == definition)
    }

    /// Every kind of step and every option a step has, in one graph every step of which is reachable.
    static let everyStep: JSONValue = [
        [
            "id": "welcome", "type": "send",
            "message": ["content": ["title": "Welcome"], "priority": 5, "collapse_id": "welcome"],
        ],
        ["id": "pause", "type": "wait", "duration": 3600],
        ["id": "morning", "type": "wait", "until_local_time": "09:30"],
        [
            "id": "bought", "type": "wait", "for_event": "purchase", "timeout": 86400,
            "where": ["value": "sku-1", "attributes": ["currency": "EUR", "amount": 12]],
            "on_event": "gold", "on_timeout": "browsed",
        ],
        ["id": "browsed", "type": "branch", "event": "screen_open", "where": ["value": "cart"], "then": "test"],
        ["id": "gold", "type": "branch", "audience": "plan == 'gold'", "then": "test", "else": "later"],
        [
            "id": "test", "type": "split",
            "paths": [["weight": 45, "next": "offer"], ["weight": 45], ["weight": 10, "control": true]],
        ],
        ["id": "offer", "type": "send", "next": "bye", "message": ["content": ["title": "10% off"]]],
        ["id": "later", "type": "wait", "for_event": "open", "timeout": 60],
        ["id": "bye", "type": "exit"],
    ]

    static let triggers: [JSONValue] = [
        ["event": "add_to_cart"],
        ["event": "purchase", "where": ["value": "sku-1", "attributes": ["currency": "EUR", "gift": true]]],
        ["attribute": "plan"],
        ["attribute": "plan", "becomes": "gold"],
        ["attribute": "seats", "becomes": 3],
        ["schedule": ["every": "day", "at": "08:00"]],
        ["schedule": ["every": "week", "at": "18:45", "weekday": "friday", "audience": "plan == 'gold'"]],
        ["attribute": "user.plan", "becomes": "pro"],
    ]

    @Test(arguments: triggers)
    func everyTriggerAndStepKindParsesBackToItself(trigger: JSONValue) throws {
        let definition = try Self.parse([
            "name": "Every kind", "trigger": trigger, "entry": ["rule": "once"], "exit": [["event": "purchase"]],
            "steps": Self.everyStep, "fallback_time_zone": "Europe/Berlin",
        ])
        #expect(
            definition.steps.map(\.typeName) == [
                "send", "wait", "wait", "wait", "branch", "branch", "split", "send", "wait", "exit",
            ])
        #expect(try Self.parse(definition.json) == definition)
    }

    static let entries: [(JSONValue?, JourneyEntryRule)] = [
        (nil, .everyTime),
        (.null, .everyTime),
        (["rule": "every_time"], .everyTime),
        (["rule": "once"], .once),
        (["rule": "once_every", "days": 1], .onceEvery(days: 1)),
        (["rule": "once_every", "days": 365], .onceEvery(days: 365)),
    ]

    @Test(arguments: entries)
    func everyEntryRuleParsesBackToItself(entry: JSONValue?, rule: JourneyEntryRule) throws {
        var object: [String: JSONValue] = [
            "name": "Entry", "trigger": ["event": "sign_up"], "steps": [["id": "end", "type": "exit"]],
        ]
        object["entry"] = entry
        let definition = try Self.parse(.object(object))
        #expect(definition.entry == rule)
        #expect(try Self.parse(definition.json) == definition)
    }

    @Test func everyPartIsReadAsTheDefinitionSaysIt() throws {
        let definition = try Self.parse([
            "name": "Every kind", "trigger": Self.triggers[1], "exit": [["event": "uninstall"]],
            "steps": Self.everyStep, "fallback_time_zone": "Europe/Berlin",
        ])
        #expect(
            definition.trigger
                == .event(
                    JourneyEventMatch(type: "purchase", value: "sku-1", attributes: ["currency": "EUR", "gift": true])))
        #expect(definition.exits == [JourneyEventMatch(type: "uninstall")])
        #expect(definition.fallbackTimeZone == "Europe/Berlin")
        let bought = JourneyEventMatch(type: "purchase", value: "sku-1", attributes: ["currency": "EUR", "amount": 12])
        #expect(
            definition.steps.map(\.kind) == [
                .send(message: ["content": ["title": "Welcome"], "priority": 5, "collapse_id": "welcome"]),
                .wait(.duration(seconds: 3600)),
                .wait(.untilLocalTime(JourneyWallClock(hour: 9, minute: 30))),
                .wait(.forEvent(bought, timeoutSeconds: 86400, onEvent: "gold", onTimeout: "browsed")),
                .branch(
                    JourneyBranch(
                        condition: .event(JourneyEventMatch(type: "screen_open", value: "cart")), then: "test",
                        otherwise: nil)),
                .branch(JourneyBranch(condition: .audience("plan == 'gold'"), then: "test", otherwise: "later")),
                .split([
                    JourneySplitPath(weight: 45, next: "offer", isControl: false),
                    JourneySplitPath(weight: 45, next: nil, isControl: false),
                    JourneySplitPath(weight: 10, next: nil, isControl: true),
                ]),
                .send(message: ["content": ["title": "10% off"]]),
                .wait(.forEvent(JourneyEventMatch(type: "open"), timeoutSeconds: 60, onEvent: nil, onTimeout: nil)),
                .exit,
            ])
        #expect(definition.steps.map(\.next) == [nil, nil, nil, nil, nil, nil, nil, "bye", nil, nil])
    }

    @Test func schedulesReadTheirClockWeekdayAndAudience() throws {
        let daily = try Self.parse([
            "name": "Daily", "trigger": Self.triggers[5], "steps": [["id": "e", "type": "exit"]],
        ])
        #expect(daily.trigger == .schedule(JourneySchedule(hour: 8, minute: 0, weekday: nil, audience: "all")))
        let weekly = try Self.parse([
            "name": "Weekly", "trigger": Self.triggers[6], "steps": [["id": "e", "type": "exit"]],
        ])
        // Calendar counts weekdays from Sunday = 1, so Friday is 6.
        #expect(
            weekly.trigger == .schedule(JourneySchedule(hour: 18, minute: 45, weekday: 6, audience: "plan == 'gold'")))
    }

    @Test func theLimitsThemselvesAreAccepted() throws {
        let steps: [JSONValue] = (0..<JourneyDefinition.maximumSteps).map {
            ["id": .string("s\($0)"), "type": "wait", "duration": .integer(JourneyWait.maximumSeconds)]
        }
        let definition = try Self.parse([
            "name": .string(String(repeating: "n", count: JourneyDefinition.maximumNameLength)),
            "trigger": ["event": "sign_up"],
            "exit": .array(Array(repeating: ["event": "purchase"], count: JourneyDefinition.maximumExits)),
            "steps": .array(steps),
        ])
        #expect(definition.steps.count == 50)
        #expect(definition.exits.count == 10)
        #expect(
            try Self.parse([
                "name": "Id", "trigger": ["event": "sign_up"],
                "steps": [["id": .string(String(repeating: "a", count: 64)), "type": "exit"]],
            ]).steps[0].id.count == 64)
    }

    @Test func aLoopThroughAWaitIsAccepted() throws {
        let definition = try Self.parse([
            "name": "Nudge until bought", "trigger": ["event": "add_to_cart"],
            "steps": [
                ["id": "nudge", "type": "send", "message": ["content": ["title": "Still there?"]]],
                ["id": "day", "type": "wait", "duration": 86400],
                ["id": "bought", "type": "branch", "event": "purchase", "then": "done", "else": "nudge"],
                ["id": "done", "type": "exit"],
            ],
        ])
        #expect(definition.steps.count == 4)
    }
}
