import Foundation
import TidingsModel

/// Reads a journey definition, collecting every problem with its path rather than stopping at the first.
struct JourneyDefinitionParser {
    var checkMessage: ([String: JSONValue]) -> [JourneyProblem]
    var checkAudience: (String) -> String?
    var problems: [JourneyProblem] = []

    static let keys: Set<String> = ["name", "trigger", "entry", "exit", "steps", "fallback_time_zone"]
    /// What a send step's message may not say: the journey decides who and when. (A `winner` is read as a
    /// split test on the people reaching the step: ``JourneyStepTest``.)
    static let messageFieldsDecidedByTheJourney: [String] = [
        "target", "audience", "send_at", "local_time", "fallback_time_zone", "if_past", "dry_run", "campaign_id",
    ]

    mutating func problem(_ path: String, _ message: String) {
        problems.append(JourneyProblem(path: path, message: message))
    }

    mutating func definition(_ value: JSONValue) -> JourneyDefinition? {
        guard let object = value.objectValue else {
            problem("", "a journey is a JSON object")
            return nil
        }
        unknownKeys(object, allowed: Self.keys, at: "")
        var name = ""
        if let text = object["name"]?.stringValue,
            (1...JourneyDefinition.maximumNameLength).contains(text.count)
        {
            name = text
        } else {
            problem("name", "must be 1 to \(JourneyDefinition.maximumNameLength) characters")
        }
        let trigger = self.trigger(object["trigger"])
        let entry = self.entry(object["entry"])
        var exits: [JourneyEventMatch] = []
        if let list = object["exit"], !list.isNull {
            if let array = list.arrayValue, array.count <= JourneyDefinition.maximumExits {
                for (index, item) in array.enumerated() {
                    let path = "exit[\(index)]"
                    guard let condition = item.objectValue else {
                        problem(path, "must be {\"event\": TYPE}")
                        continue
                    }
                    unknownKeys(condition, allowed: ["event", "where"], at: path)
                    if let match = eventMatch(condition["event"], where: condition["where"], at: path, field: "event") {
                        exits.append(match)
                    }
                }
            } else {
                problem("exit", "must be a list of at most \(JourneyDefinition.maximumExits) conditions")
            }
        }
        var fallbackTimeZone: String?
        if let zone = object["fallback_time_zone"], !zone.isNull {
            if let identifier = zone.stringValue, TimeZone(identifier: identifier) != nil {
                fallbackTimeZone = identifier
            } else {
                problem("fallback_time_zone", "must be an IANA time zone such as Asia/Tokyo")
            }
        }
        let steps = self.steps(object["steps"])
        guard let trigger, let entry, let steps else { return nil }
        let definition = JourneyDefinition(
            name: name, trigger: trigger, entry: entry, exits: exits, steps: steps,
            fallbackTimeZone: fallbackTimeZone)
        checkGraph(definition)
        return definition
    }

    mutating func unknownKeys(_ object: [String: JSONValue], allowed: Set<String>, at path: String) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            problem(path.isEmpty ? key : "\(path).\(key)", "is not a field here")
        }
    }

    mutating func trigger(_ value: JSONValue?) -> JourneyTrigger? {
        guard let object = value?.objectValue else {
            problem(
                "trigger",
                "must be {\"event\": TYPE}, {\"attribute\": KEY}, {\"segment\": NAME} or {\"schedule\": {...}}")
            return nil
        }
        let forms = ["event", "attribute", "segment", "schedule"].filter { object[$0] != nil }
        guard forms.count == 1 else {
            problem("trigger", "give exactly one of event, attribute, segment or schedule")
            return nil
        }
        switch forms[0] {
        case "event":
            unknownKeys(object, allowed: ["event", "where"], at: "trigger")
            return eventMatch(object["event"], where: object["where"], at: "trigger", field: "event").map {
                .event($0)
            }
        case "attribute":
            unknownKeys(object, allowed: ["attribute", "becomes"], at: "trigger")
            guard let key = object["attribute"]?.stringValue, JourneyTrigger.isValidAttributeKey(key) else {
                problem(
                    "trigger.attribute",
                    "must be an attribute key (1 to 64 characters of A-Z a-z 0-9 _, starting with a letter), or user.KEY for the user profile's"
                )
                return nil
            }
            return .attribute(key: key, becomes: object["becomes"].flatMap { $0.isNull ? nil : $0 })
        case "segment":
            return segmentTrigger(object)
        default:
            unknownKeys(object, allowed: ["schedule"], at: "trigger")
            return schedule(object["schedule"])
        }
    }

    /// `{"segment": NAME, "include_current_members": BOOL}`: the segment must exist now (the check of its audience
    /// `segment:NAME`); a segment a journey names cannot be deleted or renamed after.
    mutating func segmentTrigger(_ object: [String: JSONValue]) -> JourneyTrigger? {
        unknownKeys(object, allowed: ["segment", "include_current_members"], at: "trigger")
        var include = false
        if let value = object["include_current_members"], !value.isNull {
            if case .bool(let flag) = value {
                include = flag
            } else {
                problem("trigger.include_current_members", "must be true or false")
            }
        }
        guard let name = object["segment"]?.stringValue, !name.isEmpty else {
            problem("trigger.segment", "must be the name of a saved segment")
            return nil
        }
        if let error = audienceProblem("segment:\"\(name)\"") {
            problem("trigger.segment", error)
            return nil
        }
        return .segment(name: name, includeCurrentMembers: include)
    }

    mutating func schedule(_ value: JSONValue?) -> JourneyTrigger? {
        let path = "trigger.schedule"
        guard let object = value?.objectValue else {
            problem(path, "must be {\"every\": \"day\" | \"week\", \"at\": \"HH:MM\", \"audience\": EXPR}")
            return nil
        }
        unknownKeys(object, allowed: ["every", "at", "weekday", "audience"], at: path)
        let every = object["every"]?.stringValue
        if every != "day" && every != "week" { problem("\(path).every", "must be day or week") }
        let clock = object["at"]?.stringValue.flatMap(JourneyWallClock.init)
        if clock == nil { problem("\(path).at", "must be a time of day, HH:MM from 00:00 to 23:59") }
        var weekday: Int?
        if every == "week" {
            weekday = object["weekday"]?.stringValue.flatMap { JourneySchedule.weekdayNames.firstIndex(of: $0) }
                .map { $0 + 1 }
            if weekday == nil { problem("\(path).weekday", "must be a weekday in English, lowercase: monday") }
        } else if object["weekday"] != nil {
            problem("\(path).weekday", "is only for every: week")
        }
        let audience = object["audience"]?.stringValue ?? "all"
        if object["audience"] != nil, let error = audienceProblem(audience) {
            problem("\(path).audience", error)
        }
        guard let clock, every != nil else { return nil }
        return .schedule(
            JourneySchedule(hour: clock.hour, minute: clock.minute, weekday: weekday, audience: audience))
    }

    mutating func audienceProblem(_ text: String) -> String? {
        text == "all" ? nil : checkAudience(text)
    }

    mutating func entry(_ value: JSONValue?) -> JourneyEntryRule? {
        guard let value, !value.isNull else { return .everyTime }
        guard let object = value.objectValue else {
            problem("entry", "must be {\"rule\": \"once\" | \"once_every\" | \"every_time\"}")
            return nil
        }
        unknownKeys(object, allowed: ["rule", "days"], at: "entry")
        let rule = object["rule"]?.stringValue
        if rule != "once_every", object["days"] != nil { problem("entry.days", "is only for the rule once_every") }
        switch rule {
        case "once": return .once
        case "every_time": return .everyTime
        case "once_every":
            guard let days = object["days"]?.integerValue, (1...Int64(JourneyEntryRule.maximumDays)).contains(days)
            else {
                problem("entry.days", "must be whole days from 1 to \(JourneyEntryRule.maximumDays)")
                return nil
            }
            return .onceEvery(days: Int(days))
        default:
            problem("entry.rule", "must be once, once_every or every_time")
            return nil
        }
    }

    mutating func eventMatch(_ type: JSONValue?, where condition: JSONValue?, at path: String, field: String)
        -> JourneyEventMatch?
    {
        guard let name = type?.stringValue, EventType(name).isAccepted else {
            problem("\(path).\(field)", "must be an event type: \(EventType.customNameRule)")
            return nil
        }
        var match = JourneyEventMatch(type: name)
        guard let condition, !condition.isNull else { return match }
        guard let object = condition.objectValue else {
            problem("\(path).where", "must be {\"value\": TEXT, \"attributes\": {...}}")
            return nil
        }
        unknownKeys(object, allowed: ["value", "attributes"], at: "\(path).where")
        if let value = object["value"], !value.isNull {
            guard let text = value.stringValue else {
                problem("\(path).where.value", "must be a string")
                return nil
            }
            match.value = text
        }
        if let attributes = object["attributes"], !attributes.isNull {
            guard let fields = attributes.objectValue else {
                problem("\(path).where.attributes", "must be an object of attribute values")
                return nil
            }
            match.attributes = fields
        }
        return match
    }

    mutating func steps(_ value: JSONValue?) -> [JourneyStep]? {
        guard let array = value?.arrayValue, (1...JourneyDefinition.maximumSteps).contains(array.count) else {
            problem("steps", "must be a list of 1 to \(JourneyDefinition.maximumSteps) steps")
            return nil
        }
        var steps: [JourneyStep] = []
        var seen: Set<String> = []
        for (index, item) in array.enumerated() {
            let path = "steps[\(index)]"
            guard let step = step(item, at: path) else { continue }
            if !seen.insert(step.id).inserted { problem("\(path).id", "repeats the id \(step.id)") }
            steps.append(step)
        }
        return steps.count == array.count && seen.count == steps.count ? steps : nil
    }

    static func isStepID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-")
            }
    }

    mutating func stepReference(_ object: [String: JSONValue], _ key: String, at path: String) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let id = value.stringValue, Self.isStepID(id) else {
            problem("\(path).\(key)", "must be a step id")
            return nil
        }
        return id
    }

    mutating func seconds(_ value: JSONValue?, at path: String) -> Int64? {
        guard let seconds = value?.integerValue, (1...JourneyWait.maximumSeconds).contains(seconds) else {
            problem(path, "must be whole seconds from 1 to \(JourneyWait.maximumSeconds) (90 days)")
            return nil
        }
        return seconds
    }

    mutating func step(_ value: JSONValue, at path: String) -> JourneyStep? {
        guard let object = value.objectValue else {
            problem(path, "a step is a JSON object with an id and a type")
            return nil
        }
        guard let id = object["id"]?.stringValue, Self.isStepID(id) else {
            problem("\(path).id", "must be 1 to 64 characters of letters, digits, _ or -")
            return nil
        }
        let next = stepReference(object, "next", at: path)
        let common: Set<String> = ["id", "type", "next"]
        switch object["type"]?.stringValue {
        case "send":
            unknownKeys(object, allowed: common.union(["message"]), at: path)
            guard let message = object["message"]?.objectValue else {
                problem("\(path).message", "must be a message body (content, variants, ...)")
                return nil
            }
            for field in Self.messageFieldsDecidedByTheJourney where message[field] != nil {
                problem("\(path).message.\(field)", "is decided by the journey; a step's message cannot set it")
            }
            // What the journey decides is reported above; the message check would only add a misleading second word.
            for found in checkMessage(message.filter { !Self.messageFieldsDecidedByTheJourney.contains($0.key) }) {
                problem("\(path).message" + (found.path.isEmpty ? "" : ".\(found.path)"), found.message)
            }
            return JourneyStep(id: id, next: next, kind: .send(message: message))
        case "wait":
            unknownKeys(
                object,
                allowed: common.union([
                    "duration", "until_local_time", "for_event", "where", "timeout", "on_event", "on_timeout",
                ]), at: path)
            let forms = ["duration", "until_local_time", "for_event"].filter { object[$0] != nil }
            guard forms.count == 1 else {
                problem("\(path).wait", "give exactly one of duration, until_local_time or for_event")
                return nil
            }
            if forms[0] != "for_event" {
                for key in ["where", "timeout", "on_event", "on_timeout"] where object[key] != nil {
                    problem("\(path).\(key)", "is only for a wait for an event (for_event)")
                }
            }
            switch forms[0] {
            case "duration":
                return seconds(object["duration"], at: "\(path).duration").map {
                    JourneyStep(id: id, next: next, kind: .wait(.duration(seconds: $0)))
                }
            case "until_local_time":
                guard let clock = object["until_local_time"]?.stringValue.flatMap(JourneyWallClock.init) else {
                    problem("\(path).until_local_time", "must be a time of day, HH:MM from 00:00 to 23:59")
                    return nil
                }
                return JourneyStep(id: id, next: next, kind: .wait(.untilLocalTime(clock)))
            default:
                let match = eventMatch(object["for_event"], where: object["where"], at: path, field: "for_event")
                let timeout = seconds(object["timeout"], at: "\(path).timeout")
                let onEvent = stepReference(object, "on_event", at: path)
                let onTimeout = stepReference(object, "on_timeout", at: path)
                guard let match, let timeout else { return nil }
                return JourneyStep(
                    id: id, next: next,
                    kind: .wait(.forEvent(match, timeoutSeconds: timeout, onEvent: onEvent, onTimeout: onTimeout)))
            }
        case "branch":
            unknownKeys(object, allowed: common.union(["audience", "event", "where", "then", "else"]), at: path)
            let then = stepReference(object, "then", at: path)
            let otherwise = stepReference(object, "else", at: path)
            if object["audience"] != nil && object["event"] == nil {
                guard let expression = object["audience"]?.stringValue else {
                    problem("\(path).audience", "must be an audience expression")
                    return nil
                }
                if object["where"] != nil {
                    problem("\(path).where", "narrows an event; a branch on an audience has none")
                }
                if let error = checkAudience(expression) {
                    problem("\(path).audience", error)
                    return nil
                }
                return JourneyStep(
                    id: id, next: next,
                    kind: .branch(JourneyBranch(condition: .audience(expression), then: then, otherwise: otherwise)))
            }
            if object["event"] != nil && object["audience"] == nil {
                guard let match = eventMatch(object["event"], where: object["where"], at: path, field: "event")
                else { return nil }
                return JourneyStep(
                    id: id, next: next,
                    kind: .branch(JourneyBranch(condition: .event(match), then: then, otherwise: otherwise)))
            }
            problem("\(path).branch", "give exactly one of audience or event")
            return nil
        case "split":
            unknownKeys(object, allowed: common.union(["paths"]), at: path)
            guard let array = object["paths"]?.arrayValue, (2...10).contains(array.count) else {
                problem("\(path).paths", "must be a list of 2 to 10 paths")
                return nil
            }
            var paths: [JourneySplitPath] = []
            for (index, item) in array.enumerated() {
                let pathAt = "\(path).paths[\(index)]"
                guard let entry = item.objectValue else {
                    problem(pathAt, "must be {\"weight\": N, \"next\": ID} or {\"weight\": N, \"control\": true}")
                    continue
                }
                unknownKeys(entry, allowed: ["weight", "next", "control"], at: pathAt)
                guard let weight = entry["weight"]?.integerValue, (1...100).contains(weight) else {
                    problem("\(pathAt).weight", "must be a whole number from 1 to 100")
                    continue
                }
                let isControl = entry["control"] == .bool(true)
                if isControl && entry["next"] != nil { problem("\(pathAt).next", "a control path exits; give no next") }
                paths.append(
                    JourneySplitPath(
                        weight: Int(weight), next: isControl ? nil : stepReference(entry, "next", at: pathAt),
                        isControl: isControl))
            }
            guard paths.count == array.count else { return nil }
            return JourneyStep(id: id, next: next, kind: .split(paths))
        case "exit":
            unknownKeys(object, allowed: ["id", "type"], at: path)
            return JourneyStep(id: id, kind: .exit)
        default:
            problem("\(path).type", "must be send, wait, branch, split or exit")
            return nil
        }
    }

    /// The step ids a step names, by the field that names them (those it leads to by list order are always steps).
    static func references(of step: JourneyStep) -> [(field: String, target: String)] {
        var found: [(String, String)] = step.next.map { [("next", $0)] } ?? []
        switch step.kind {
        case .wait(.forEvent(_, _, let onEvent, let onTimeout)):
            found += [("on_event", onEvent), ("on_timeout", onTimeout)].compactMap { field, id in id.map { (field, $0) }
            }
        case .branch(let branch):
            found += [("then", branch.then), ("else", branch.otherwise)].compactMap { field, id in
                id.map { (field, $0) }
            }
        case .split(let paths):
            for (index, path) in paths.enumerated() {
                if let next = path.next { found.append(("paths[\(index)].next", next)) }
            }
        default: break
        }
        return found
    }

    /// Every step is reachable from the first, every reference names a step, and no loop runs without a wait
    /// (which would send or spin without end in one go).
    mutating func checkGraph(_ definition: JourneyDefinition) {
        let ids = Set(definition.steps.map(\.id))
        for (index, step) in definition.steps.enumerated() {
            for (field, target) in Self.references(of: step) where !ids.contains(target) {
                problem("steps[\(index)].\(field)", "names \(target), which is not a step of this journey")
            }
        }
        var reached: Set<String> = []
        var pending = [definition.steps[0].id]
        while let id = pending.popLast() {
            guard reached.insert(id).inserted, let step = definition.step(id) else { continue }
            pending.append(contentsOf: definition.successors(of: step).compactMap { $0 })
        }
        for (index, step) in definition.steps.enumerated() where !reached.contains(step.id) {
            problem("steps[\(index)]", "no path from the first step reaches \(step.id)")
        }
        // A loop without a wait: depth-first over the edges that do not pass a wait.
        var state: [String: Bool] = [:]  // false: on the path; true: done
        var looping: String?
        func visit(_ id: String) {
            guard looping == nil, let step = definition.step(id) else { return }
            if let done = state[id] {
                if !done { looping = id }
                return
            }
            state[id] = false
            if case .wait = step.kind {
            } else {
                for case let target? in definition.successors(of: step) { visit(target) }
            }
            state[id] = true
        }
        for step in definition.steps { visit(step.id) }
        if let looping, let index = definition.steps.firstIndex(where: { $0.id == looping }) {
            problem("steps[\(index)]", "is on a loop without a wait step; a person would go round it at once")
        }
    }
}
