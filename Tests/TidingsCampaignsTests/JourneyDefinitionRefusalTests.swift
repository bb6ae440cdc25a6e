import Testing
import TidingsModel

@testable import TidingsCampaigns

/// Every way a definition is refused, each problem named by its path, all of them at once.
@Suite struct JourneyDefinitionRefusalTests {
    static let send: JSONValue = ["id": "hello", "type": "send", "message": ["content": ["title": "Hi"]]]

    /// A valid journey with `changes` made to its top level.
    static func journey(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var object: [String: JSONValue] = ["name": "Welcome", "trigger": ["event": "sign_up"], "steps": [send]]
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    static func journey(steps: [JSONValue]) -> JSONValue { journey(["steps": .array(steps)]) }

    static func problems(
        _ value: JSONValue, checkMessage: @escaping ([String: JSONValue]) -> [JourneyProblem] = { _ in [] },
        checkAudience: @escaping (String) -> String? = { _ in nil }
    ) -> [JourneyProblem] {
        do {
            _ = try JourneyDefinition.parse(value, checkMessage: checkMessage, checkAudience: checkAudience)
            return []
        } catch {
            return error.problems
        }
    }

    static func paths(_ value: JSONValue) -> [String] { problems(value).map(\.path) }

    @Test func theBaseJourneyIsValid() {
        #expect(Self.problems(Self.journey()) == [])
    }

    @Test func aDefinitionMustBeAnObject() {
        #expect(Self.paths(["name", "steps"]) == [""])
    }

    @Test func unknownFieldsAreNamed() {
        #expect(Self.paths(Self.journey(["colour": "red", "audience": "all"])) == ["audience", "colour"])
        var step = Self.send.objectValue ?? [:]
        step["delay"] = 5
        #expect(Self.paths(Self.journey(steps: [.object(step)])) == ["steps[0].delay"])
        #expect(
            Self.paths(Self.journey(["exit": [["event": "purchase", "value": "x"]]])) == ["exit[0].value"])
        #expect(
            Self.paths(Self.journey(["trigger": ["event": "purchase", "where": ["amount": 5]]]))
                == ["trigger.where.amount"])
        #expect(
            Self.paths(Self.journey(steps: [["id": "end", "type": "exit", "message": ["content": ["title": "x"]]]]))
                == ["steps[0].message"])
    }

    @Test(arguments: [nil, "", 42, .string(String(repeating: "n", count: 201))] as [JSONValue?])
    func theNameIsOneTo200Characters(name: JSONValue?) {
        let found = Self.problems(Self.journey(["name": name]))
        #expect(found.map(\.path) == ["name"])
        #expect(found.first?.message.contains("200") == true)
    }

    @Test(
        arguments: [
            nil, "sign_up", ["event": "sign_up", "attribute": "plan"],
            ["event": "sign_up", "schedule": ["every": "day", "at": "09:00"]], [:],
        ] as [JSONValue?])
    func theTriggerHasExactlyOneForm(trigger: JSONValue?) {
        #expect(Self.paths(Self.journey(["trigger": trigger])) == ["trigger"])
    }

    @Test(arguments: ["Bad Type", "tidings_x", "Purchase", "", "9lives", 7] as [JSONValue])
    func aTriggerEventMustBeAnAcceptedType(type: JSONValue) {
        let found = Self.problems(Self.journey(["trigger": ["event": type]]))
        #expect(found.map(\.path) == ["trigger.event"])
        #expect(found.first?.message.contains(EventType.customNameRule) == true)
    }

    @Test func badWhereConditionsAreNamed() {
        #expect(Self.paths(Self.journey(["trigger": ["event": "purchase", "where": "x"]])) == ["trigger.where"])
        #expect(
            Self.paths(Self.journey(["trigger": ["event": "purchase", "where": ["value": 5]]]))
                == ["trigger.where.value"])
        #expect(
            Self.paths(Self.journey(["trigger": ["event": "purchase", "where": ["attributes": [1]]]]))
                == ["trigger.where.attributes"])
    }

    @Test func anAttributeTriggerNamesAValidKey() {
        #expect(Self.paths(Self.journey(["trigger": ["attribute": "1plan"]])) == ["trigger.attribute"])
        #expect(Self.paths(Self.journey(["trigger": ["attribute": "plan", "to": "gold"]])) == ["trigger.to"])
    }

    @Test func aScheduleNamesEachBadPart() {
        #expect(
            Self.paths(Self.journey(["trigger": ["schedule": ["every": "month", "at": "24:00"]]]))
                == ["trigger.schedule.every", "trigger.schedule.at"])
        #expect(
            Self.paths(Self.journey(["trigger": ["schedule": ["every": "week", "at": "09:00"]]]))
                == ["trigger.schedule.weekday"])
        #expect(
            Self.paths(Self.journey(["trigger": ["schedule": ["every": "week", "at": "09:00", "weekday": "Monday"]]]))
                == ["trigger.schedule.weekday"])
        #expect(
            Self.paths(Self.journey(["trigger": ["schedule": ["every": "day", "at": "09:00", "weekday": "monday"]]]))
                == ["trigger.schedule.weekday"])
        #expect(
            Self.paths(Self.journey(["trigger": ["schedule": ["every": "day", "at": "09:00", "hour": 9]]]))
                == ["trigger.schedule.hour"])
        #expect(Self.paths(Self.journey(["trigger": ["schedule": "daily"]])) == ["trigger.schedule"])
    }

    @Test func audienceProblemsComeFromTheAudienceCheck() {
        let check: (String) -> String? = { $0.contains("==") ? nil : "expected a comparison at 5" }
        let schedule = Self.problems(
            Self.journey(["trigger": ["schedule": ["every": "day", "at": "09:00", "audience": "plan gold"]]]),
            checkAudience: check)
        #expect(schedule == [JourneyProblem(path: "trigger.schedule.audience", message: "expected a comparison at 5")])
        let branch = Self.problems(
            Self.journey(steps: [
                ["id": "b", "type": "branch", "audience": "plan gold"], ["id": "e", "type": "exit"],
            ]), checkAudience: check)
        #expect(branch == [JourneyProblem(path: "steps[0].audience", message: "expected a comparison at 5")])
        #expect(
            Self.problems(
                Self.journey(steps: [
                    ["id": "b", "type": "branch", "audience": "plan == 'gold'"], ["id": "e", "type": "exit"],
                ]), checkAudience: check) == [])
        #expect(
            Self.paths(
                Self.journey(steps: [["id": "b", "type": "branch", "audience": 5], ["id": "e", "type": "exit"]]))
                == ["steps[0].audience"])
    }

    @Test func entryDaysAreOneTo365() {
        for days: JSONValue in [0, 366, -1, "7", 7.5] {
            let found = Self.problems(Self.journey(["entry": ["rule": "once_every", "days": days]]))
            #expect(found.map(\.path) == ["entry.days"], "days \(days)")
            #expect(found.first?.message.contains("365") == true)
        }
        #expect(Self.paths(Self.journey(["entry": ["rule": "once_every"]])) == ["entry.days"])
        #expect(Self.paths(Self.journey(["entry": ["rule": "sometimes"]])) == ["entry.rule"])
        #expect(Self.paths(Self.journey(["entry": "once"])) == ["entry"])
        #expect(Self.paths(Self.journey(["entry": ["rule": "once", "every": 2]])) == ["entry.every"])
    }

    @Test func atMostTenExits() {
        let eleven = JSONValue.array(Array(repeating: ["event": "purchase"], count: 11))
        let found = Self.problems(Self.journey(["exit": eleven]))
        #expect(found.map(\.path) == ["exit"])
        #expect(found.first?.message.contains("10") == true)
        #expect(Self.paths(Self.journey(["exit": ["event": "purchase"]])) == ["exit"])
        #expect(Self.paths(Self.journey(["exit": ["purchase"]])) == ["exit[0]"])
        #expect(Self.paths(Self.journey(["exit": [["event": "Bad Type"]]])) == ["exit[0].event"])
    }

    @Test func theFallbackZoneIsAnIANAZone() {
        #expect(Self.paths(Self.journey(["fallback_time_zone": "Mars/Olympus"])) == ["fallback_time_zone"])
        #expect(Self.paths(Self.journey(["fallback_time_zone": 9])) == ["fallback_time_zone"])
    }

    @Test func oneTo50Steps() {
        for count in [0, 51] {
            let steps = (0..<count).map { JSONValue.object(["id": .string("s\($0)"), "type": "exit"]) }
            let found = Self.problems(Self.journey(steps: steps))
            #expect(found.map(\.path) == ["steps"], "\(count) steps")
            #expect(found.first?.message.contains("50") == true)
        }
        #expect(Self.paths(Self.journey(["steps": nil])) == ["steps"])
        #expect(Self.paths(Self.journey(["steps": Self.send])) == ["steps"])
        #expect(Self.paths(Self.journey(steps: ["hello"])) == ["steps[0]"])
    }

    @Test func stepIDsAreUnique() {
        let found = Self.problems(
            Self.journey(steps: [["id": "a", "type": "exit"], ["id": "a", "type": "exit"]]))
        #expect(found.map(\.path) == ["steps[1].id"])
        #expect(found.first?.message.contains("a") == true)
    }

    /// Two sends with one id: the repeat is the only problem; the graph, whose ids are ambiguous, says nothing.
    @Test func aRepeatedIDIsNotAlsoCalledALoop() {
        #expect(Self.paths(Self.journey(steps: [Self.send, Self.send])) == ["steps[1].id"])
    }

    @Test(
        arguments: [nil, "", "has space", "émoji", "a.b", 7, .string(String(repeating: "a", count: 65))] as [JSONValue?]
    )
    func aStepIDIsLettersDigitsUnderscoreOrDash(id: JSONValue?) {
        var step: [String: JSONValue] = ["type": "exit"]
        step["id"] = id
        #expect(Self.paths(Self.journey(steps: [.object(step)])) == ["steps[0].id"])
    }

    @Test func theTypeIsOneOfTheKinds() {
        #expect(Self.paths(Self.journey(steps: [["id": "a", "type": "email"]])) == ["steps[0].type"])
        #expect(Self.paths(Self.journey(steps: [["id": "a"]])) == ["steps[0].type"])
    }

    @Test func aWaitHasExactlyOneForm() {
        let forms: [[String: JSONValue]] = [
            [:], ["duration": 60, "until_local_time": "09:00"],
            ["for_event": "purchase", "timeout": 60, "duration": 60],
        ]
        for form in forms {
            let step = JSONValue.object(form.merging(["id": "w", "type": "wait"]) { old, _ in old })
            #expect(Self.paths(Self.journey(steps: [step])) == ["steps[0].wait"], "\(form)")
        }
    }

    @Test(arguments: [0, -5, 7_776_001, "60", 1.5] as [JSONValue])
    func aDurationIsOneSecondTo90Days(duration: JSONValue) {
        let found = Self.problems(Self.journey(steps: [["id": "w", "type": "wait", "duration": duration]]))
        #expect(found.map(\.path) == ["steps[0].duration"])
        #expect(found.first?.message.contains("90 days") == true)
    }

    @Test(arguments: ["24:00", "9:00", "09:60", "0900", "09:00:00", "", "noon"] as [JSONValue])
    func untilLocalTimeIsHHMM(time: JSONValue) {
        #expect(
            Self.paths(Self.journey(steps: [["id": "w", "type": "wait", "until_local_time": time]]))
                == ["steps[0].until_local_time"])
    }

    @Test func aWaitForAnEventNeedsATimeoutAndValidWays() {
        #expect(
            Self.paths(Self.journey(steps: [["id": "w", "type": "wait", "for_event": "purchase"]]))
                == ["steps[0].timeout"])
        #expect(
            Self.paths(Self.journey(steps: [["id": "w", "type": "wait", "for_event": "purchase", "timeout": 0]]))
                == ["steps[0].timeout"])
        #expect(
            Self.paths(
                Self.journey(steps: [
                    [
                        "id": "w", "type": "wait", "for_event": "Bad Type", "on_event": "no way",
                        "on_timeout": "", "delay": 1,
                    ]
                ])) == [
                    "steps[0].delay", "steps[0].for_event", "steps[0].timeout", "steps[0].on_event",
                    "steps[0].on_timeout",
                ])
    }

    /// `on_event`, `on_timeout`, `timeout` and `where` mean something only to a wait for an event; elsewhere they
    /// would be stored and silently ignored (and `on_event` would name no step without being caught).
    @Test func aTimedWaitRefusesTheFieldsOfAnEventWait() {
        for extra: [String: JSONValue] in [
            ["on_event": "nowhere"], ["on_timeout": "hello"], ["timeout": 60], ["where": ["value": "x"]],
        ] {
            for form: [String: JSONValue] in [["duration": 60], ["until_local_time": "09:00"]] {
                let step = JSONValue.object(
                    form.merging(extra) { old, _ in old }.merging(["id": "w", "type": "wait"]) { old, _ in old })
                #expect(
                    Self.paths(Self.journey(steps: [step, Self.send])) == ["steps[0].\(extra.keys.first ?? "")"],
                    "\(form) with \(extra)")
            }
        }
    }

    /// `where` narrows only an event; with an audience it would be stored and silently ignored.
    @Test func anAudienceBranchRefusesWhere() {
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "b", "type": "branch", "audience": "plan == 'gold'", "where": ["value": "x"]],
                    ["id": "e", "type": "exit"],
                ])) == ["steps[0].where"])
    }

    /// `days` counts only for `once_every`; with another rule it would be stored and silently dropped.
    @Test func onlyOnceEveryTakesDays() {
        for rule: JSONValue in ["once", "every_time"] {
            #expect(Self.paths(Self.journey(["entry": ["rule": rule, "days": 7]])) == ["entry.days"], "\(rule)")
        }
    }

    static let decidedByTheJourney = [
        "target", "audience", "send_at", "local_time", "fallback_time_zone", "if_past", "dry_run", "campaign_id",
    ]

    @Test(arguments: decidedByTheJourney)
    func aSendCannotSayWhoOrWhen(field: String) {
        let step: JSONValue = [
            "id": "hello", "type": "send", "message": ["content": ["title": "Hi"], field: "x"],
        ]
        let found = Self.problems(Self.journey(steps: [["id": "first", "type": "wait", "duration": 60], step]))
        #expect(found.map(\.path) == ["steps[1].message.\(field)"])
    }

    @Test func aSendHasAMessageObject() {
        #expect(Self.paths(Self.journey(steps: [["id": "hello", "type": "send"]])) == ["steps[0].message"])
        #expect(
            Self.paths(Self.journey(steps: [["id": "hello", "type": "send", "message": "Hi"]])) == ["steps[0].message"])
    }

    @Test func messageProblemsArePrefixedWithTheStepPath() {
        var checked: [[String: JSONValue]] = []
        let found = Self.problems(
            Self.journey(steps: [
                Self.send, ["id": "two", "type": "send", "message": ["content": ["title": ""]]],
            ]),
            checkMessage: { message in
                checked.append(message)
                guard message["content"]?["title"] == "" else { return [] }
                return [
                    JourneyProblem(path: "content.title", message: "must not be empty"),
                    JourneyProblem(path: "", message: "has nothing to show"),
                ]
            })
        #expect(
            found == [
                JourneyProblem(path: "steps[1].message.content.title", message: "must not be empty"),
                JourneyProblem(path: "steps[1].message", message: "has nothing to show"),
            ])
        #expect(checked == [["content": ["title": "Hi"]], ["content": ["title": ""]]])
    }

    @Test func aBranchHasExactlyOneCondition() {
        for condition: [String: JSONValue] in [[:], ["audience": "plan == 'gold'", "event": "purchase"]] {
            let step = JSONValue.object(condition.merging(["id": "b", "type": "branch"]) { old, _ in old })
            #expect(
                Self.paths(Self.journey(steps: [step, ["id": "e", "type": "exit"]])) == ["steps[0].branch"],
                "\(condition)")
        }
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "b", "type": "branch", "event": "tidings_x", "then": "e"], ["id": "e", "type": "exit"],
                ]))
                == ["steps[0].event"])
    }

    @Test func aSplitHasTwoToTenWeightedPaths() {
        for count in [0, 1, 11] {
            let paths = JSONValue.array(Array(repeating: ["weight": 1], count: count))
            #expect(
                Self.paths(Self.journey(steps: [["id": "s", "type": "split", "paths": paths], Self.send]))
                    == ["steps[0].paths"], "\(count) paths")
        }
        for weight: JSONValue in [0, 101, "5", nil] {
            var first: [String: JSONValue] = ["next": "hello"]
            first["weight"] = weight
            let step: JSONValue = ["id": "s", "type": "split", "paths": [.object(first), ["weight": 1]]]
            let found = Self.problems(Self.journey(steps: [step, Self.send]))
            #expect(found.map(\.path) == ["steps[0].paths[0].weight"], "weight \(weight)")
            #expect(found.first?.message.contains("1 to 100") == true)
        }
        #expect(
            Self.paths(
                Self.journey(steps: [["id": "s", "type": "split", "paths": [["weight": 1], 5]], Self.send]))
                == ["steps[0].paths[1]"])
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "s", "type": "split", "paths": [["weight": 1], ["weight": 1, "share": 2]]], Self.send,
                ])) == ["steps[0].paths[1].share"])
    }

    @Test func aControlPathHasNoNext() {
        let step: JSONValue = [
            "id": "s", "type": "split", "paths": [["weight": 1], ["weight": 1, "control": true, "next": "hello"]],
        ]
        #expect(Self.paths(Self.journey(steps: [step, Self.send])) == ["steps[0].paths[1].next"])
    }

    @Test func anExitStepHasNoNext() {
        #expect(
            Self.paths(Self.journey(steps: [["id": "e", "type": "exit", "next": "e"]])) == ["steps[0].next"])
    }

    @Test func everyReferenceNamesAStep() {
        let found = Self.problems(
            Self.journey(steps: [
                ["id": "a", "type": "send", "next": "nowhere", "message": ["content": ["title": "Hi"]]],
                ["id": "b", "type": "branch", "event": "purchase", "then": "elsewhere"],
                ["id": "c", "type": "exit"],
            ]))
        #expect(found.map(\.path).contains("steps[0].next"))
        #expect(found.contains { $0.path == "steps[0].next" && $0.message.contains("nowhere") })
        #expect(found.contains { $0.path == "steps[1].then" && $0.message.contains("elsewhere") })
        #expect(
            Self.problems(
                Self.journey(steps: [
                    ["id": "b", "type": "branch", "event": "purchase", "then": "elsewhere"],
                    ["id": "c", "type": "exit"],
                ]))
                == [
                    JourneyProblem(
                        path: "steps[0].then", message: "names elsewhere, which is not a step of this journey")
                ])
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "w", "type": "wait", "for_event": "open", "timeout": 5, "on_timeout": "gone"]
                ]))
                == ["steps[0].on_timeout"])
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "s", "type": "split", "paths": [["weight": 1, "next": "gone"], ["weight": 1]]]
                ]))
                == ["steps[0].paths[0].next"])
    }

    @Test func everyStepIsReachable() {
        let found = Self.problems(
            Self.journey(steps: [
                ["id": "a", "type": "send", "next": "c", "message": ["content": ["title": "Hi"]]],
                ["id": "b", "type": "send", "message": ["content": ["title": "Never"]]],
                ["id": "c", "type": "exit"],
            ]))
        #expect(found == [JourneyProblem(path: "steps[1]", message: "no path from the first step reaches b")])
        #expect(
            Self.paths(Self.journey(steps: [["id": "e", "type": "exit"], Self.send])) == ["steps[1]"])
        // A control path leads nowhere: the step after the split is reached only through the split's other paths.
        #expect(
            Self.paths(
                Self.journey(steps: [
                    [
                        "id": "s", "type": "split",
                        "paths": [["weight": 1, "next": "e"], ["weight": 1, "control": true]],
                    ],
                    Self.send, ["id": "e", "type": "exit"],
                ])) == ["steps[1]"])
    }

    @Test func aLoopWithoutAWaitIsRefused() {
        let found = Self.problems(
            Self.journey(steps: [
                ["id": "nudge", "type": "send", "message": ["content": ["title": "Hi"]]],
                ["id": "check", "type": "branch", "audience": "plan == 'free'", "then": "nudge", "else": "done"],
                ["id": "done", "type": "exit"],
            ]))
        #expect(found.map(\.path) == ["steps[0]"])
        #expect(found.first?.message.contains("loop without a wait") == true)
        #expect(
            Self.paths(
                Self.journey(steps: [
                    ["id": "again", "type": "send", "next": "again", "message": ["content": ["title": "Hi"]]]
                ]))
                == ["steps[0]"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = Self.problems([
            "name": "", "colour": "red", "trigger": ["event": "Bad Type"], "entry": ["rule": "once_every", "days": 0],
            "exit": [["event": "tidings_x"]], "fallback_time_zone": "Nowhere/Else",
            "steps": [
                ["id": "w", "type": "wait", "duration": 0],
                ["id": "s", "type": "send", "message": ["content": ["title": "Hi"], "target": "all"]],
                ["id": "p", "type": "split", "paths": [["weight": 0], ["weight": 1, "control": true]]],
                ["id": "bad id", "type": "exit"],
            ],
        ])
        #expect(
            found.map(\.path) == [
                "colour", "name", "trigger.event", "entry.days", "exit[0].event", "fallback_time_zone",
                "steps[0].duration", "steps[1].message.target", "steps[2].paths[0].weight", "steps[3].id",
            ])
    }

    /// Graph problems are found together too, once every step reads.
    @Test func everyGraphProblemIsReportedAtOnce() {
        let found = Self.problems(
            Self.journey(steps: [
                ["id": "a", "type": "send", "message": ["content": ["title": "Hi"]]],
                ["id": "b", "type": "branch", "event": "purchase", "then": "a", "else": "gone"],
                ["id": "c", "type": "exit"],
            ]))
        #expect(found.map(\.path) == ["steps[1].else", "steps[2]", "steps[0]"])
    }
}
