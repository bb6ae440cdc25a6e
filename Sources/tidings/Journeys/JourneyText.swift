import Foundation
import TidingsModel

/// Journeys (docs/journeys.md) as text for people: the list, and one journey with each step's numbers and its
/// exits by reason.
///
/// ```
/// STEP    TYPE  WHAT                          ENTERED  WAITING  SENT  SKIPPED  DELIVERED  OPENED  CONVERTED  EXITED
/// pause   wait  1 h                                 3        1
/// remind  send  "Still thinking about it?"          2        0     2        0          2       1          1       0
/// ```
enum JourneyText {
    /// `GET /v1/journeys` as a table, newest first as the server lists them.
    static func list(_ journeys: [JSONValue]) -> String {
        var table = ColumnText([
            ("JOURNEY", .left), ("NAME", .left), ("STATE", .left), ("VERSION", .right), ("TRIGGER", .left),
            ("ENTERED", .right), ("ACTIVE", .right), ("COMPLETED", .right), ("EXITED", .right), ("UPDATED", .left),
        ])
        for journey in journeys {
            table.row([
                DisplayText.value(journey["journey_id"]), DisplayText.value(journey["name"]),
                DisplayText.value(journey["state"]), number(journey["version"]), trigger(journey["trigger"]),
                number(journey["entered"]), number(journey["active"]), number(journey["completed"]),
                number(total(journey["exited"])), DisplayText.time(journey["updated_at"]),
            ])
        }
        return table.render() + "\(journeys.count) journey(s)\n"
    }

    /// `GET /v1/journeys/{id}`: the summary, then every step of the definition with its numbers, then the exits.
    static func show(_ journey: JSONValue) -> String {
        let definition = journey["definition"] ?? .null
        var header = TwoColumnText()
        header.row("Journey", DisplayText.value(journey["journey_id"]))
        header.row("Name", DisplayText.value(journey["name"]))
        header.row("State", DisplayText.value(journey["state"]))
        header.row("Version", number(journey["version"]))
        header.row("Trigger", trigger(journey["trigger"] ?? definition["trigger"]))
        header.row("Entry", entry(definition["entry"]))
        let exits = (definition["exit"]?.arrayValue ?? []).map { condition(event: $0["event"], where: $0["where"]) }
        header.row("Exit on", exits.isEmpty ? "-" : exits.joined(separator: ", "))
        header.row("Created", DisplayText.time(journey["created_at"]))
        header.row("Updated", DisplayText.time(journey["updated_at"]))
        header.row(
            "People",
            "\(number(journey["entered"])) entered, \(number(journey["active"])) in it, "
                + "\(number(journey["completed"])) completed, \(number(total(journey["exited"]))) exited")

        var steps = ColumnText([
            ("STEP", .left), ("TYPE", .left), ("WHAT", .left), ("ENTERED", .right), ("WAITING", .right),
            ("SENT", .right), ("SKIPPED", .right), ("DELIVERED", .right), ("OPENED", .right),
            ("CONVERTED", .right), ("EXITED", .right),
        ])
        let counted = journey["steps"]?.arrayValue ?? []
        let defined = definition["steps"]?.arrayValue ?? []
        // The definition gives the order and what each step does; a step only counted (of an older version)
        // is still shown, after them.
        var rows = defined.map { step in (step, counted.first { $0["id"] == step["id"] }) }
        for step in counted where !defined.contains(where: { $0["id"] == step["id"] }) { rows.append((step, step)) }
        for (index, (step, counts)) in rows.enumerated() {
            let isSend = step["type"]?.stringValue == "send"
            let sendNumber = { (key: String) in isSend ? number(counts?[key] ?? 0) : "" }
            steps.row([
                DisplayText.value(step["id"]), DisplayText.value(step["type"]),
                what(step, following: index + 1 < defined.count ? defined[index + 1]["id"] : nil),
                number(counts?["entered"] ?? 0), number(counts?["waiting"] ?? 0), sendNumber("sent"),
                sendNumber("skipped"), sendNumber("delivered"), sendNumber("opened"), sendNumber("converted"),
                number(total(counts?["exited"])),
            ])
        }
        return header.render() + "\n" + steps.render() + "\n" + splitTests(counted)
            + exitsByReason(journey, steps: counted)
    }

    /// Each send step's split test that picks a winner: where it stands, then each arm's numbers.
    ///
    /// ```
    /// Split test at offer (version 1): decided b at 2026-12-06T05:00:00.000Z, significant
    /// VARIANT  SENT  CONVERTED  RATE
    /// a           9          0  0.0
    /// ```
    static func splitTests(_ steps: [JSONValue]) -> String {
        var text = ""
        for step in steps {
            guard let test = step["winner"], !test.isNull else { continue }
            let place = "Split test at \(DisplayText.value(step["id"])) (version \(number(test["version"])))"
            if test["state"] == "decided" {
                let verdict = test["inconclusive"] == true ? "inconclusive" : "significant"
                text +=
                    "\(place): decided \(DisplayText.value(test["variant"])) at "
                    + "\(DisplayText.time(test["decided_at"])), \(verdict)\n"
            } else {
                text +=
                    "\(place): testing until \(DisplayText.time(test["test_ends_at"])), deciding at "
                    + "\(DisplayText.time(test["decide_at"]))\n"
            }
            var arms = ColumnText([("VARIANT", .left), ("SENT", .right), ("CONVERTED", .right), ("RATE", .right)])
            for arm in test["variants"]?.arrayValue ?? [] {
                arms.row([
                    DisplayText.value(arm["variant"]), number(arm["sent"]), number(arm["converted"]),
                    number(arm["rate"]),
                ])
            }
            text += arms.render() + "\n"
        }
        return text
    }

    /// Every reason people left by, over the journey and at which steps: `event:purchase`, `exit_step`,
    /// `control`...
    static func exitsByReason(_ journey: JSONValue, steps: [JSONValue]) -> String {
        let reasons = (journey["exited"]?.objectValue ?? [:]).filter { ($0.value.integerValue ?? 0) > 0 }
        guard !reasons.isEmpty else { return "No one has exited.\n" }
        var table = ColumnText([("EXITED BY", .left), ("PEOPLE", .right), ("AT STEPS", .left)])
        for (reason, count) in reasons.sorted(by: {
            ($0.value.integerValue ?? 0, $1.key) > ($1.value.integerValue ?? 0, $0.key)
        }) {
            let at = steps.compactMap { step -> String? in
                guard let count = step["exited"]?[reason]?.integerValue, count > 0 else { return nil }
                return "\(DisplayText.value(step["id"])) \(count)"
            }
            table.row([reason, number(count), at.joined(separator: ", ")])
        }
        return table.render()
    }

    /// What a step does and where it goes next, in a few words.
    static func what(_ step: JSONValue, following: JSONValue?) -> String {
        let next = step["next"]?.stringValue ?? following?.stringValue
        let onward = next.map { " → \($0)" } ?? " → end"
        let orNext = { (key: String) in step[key]?.stringValue ?? next ?? "end" }
        switch step["type"]?.stringValue {
        case "send":
            let content = step["message"]?["content"]
            let title = content?["title"]?.stringValue ?? content?["default"]?["title"]?.stringValue
            let variants = step["message"]?["variants"]?.arrayValue?.count
            return (title.map { "\"\($0)\"" } ?? variants.map { "\($0) variants" } ?? "push") + onward
        case "wait":
            if let seconds = step["duration"]?.integerValue { return span(seconds) + onward }
            if let time = step["until_local_time"]?.stringValue { return "until \(time) local" + onward }
            let event = condition(event: step["for_event"], where: step["where"])
            let timeout = step["timeout"]?.integerValue.map { " up to \(span($0))" } ?? ""
            return "for \(event)\(timeout): event → \(orNext("on_event")), timeout → \(orNext("on_timeout"))"
        case "branch":
            let test =
                step["audience"]?.stringValue.map { "audience \($0)" }
                ?? step["event"]?.stringValue.map { "did \($0)" } ?? "?"
            return "\(test): then → \(orNext("then")), else → \(orNext("else"))"
        case "split":
            let paths = (step["paths"]?.arrayValue ?? []).map { path in
                number(path["weight"]) + " → " + (path["control"] == true ? "control" : DisplayText.value(path["next"]))
            }
            return paths.joined(separator: ", ")
        default:
            return ""
        }
    }

    /// A trigger in words: `event add_to_cart`, `attribute plan becomes pro`, `segment lapsed`,
    /// `schedule every day at 09:00`.
    static func trigger(_ trigger: JSONValue?) -> String {
        guard let trigger else { return "-" }
        if let event = trigger["event"] { return "event " + condition(event: event, where: trigger["where"]) }
        if let key = trigger["attribute"]?.stringValue {
            return "attribute \(key)" + (trigger["becomes"].map { " becomes \(DisplayText.value($0))" } ?? "")
        }
        if let segment = trigger["segment"]?.stringValue {
            return "segment \(segment)"
                + (trigger["include_current_members"] == .bool(true) ? " (current members too)" : "")
        }
        if let schedule = trigger["schedule"] {
            var text = "schedule every \(DisplayText.value(schedule["every"]))"
            if let weekday = schedule["weekday"]?.stringValue { text += " on \(weekday)" }
            if let time = schedule["at"]?.stringValue { text += " at \(time)" }
            if let audience = schedule["audience"]?.stringValue { text += " for \(audience)" }
            return text
        }
        return DisplayText.value(trigger)
    }

    static func entry(_ entry: JSONValue?) -> String {
        switch entry?["rule"]?.stringValue {
        case "once": "once ever"
        case "once_every": "at most once every \(number(entry?["days"])) days"
        case let rule?: rule.replacingOccurrences(of: "_", with: " ")
        case nil: "every time"
        }
    }

    /// An event type with its `where` narrowing, if any: `purchase (value = gold, plan = pro)`.
    static func condition(event: JSONValue?, where narrowing: JSONValue?) -> String {
        let type = DisplayText.value(event)
        var parts: [String] = []
        if let value = narrowing?["value"] { parts.append("value = \(DisplayText.value(value))") }
        for (key, value) in (narrowing?["attributes"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            parts.append("\(key) = \(DisplayText.value(value))")
        }
        return parts.isEmpty ? type : "\(type) (\(parts.joined(separator: ", ")))"
    }

    /// Seconds in the largest unit that divides them: `90 d`, `1 h`, `30 min`, `45 s`.
    static func span(_ seconds: Int64) -> String {
        for (length, unit) in [(Int64(86400), "d"), (3600, "h"), (60, "min")] where seconds % length == 0 {
            return "\(seconds / length) \(unit)"
        }
        return "\(seconds) s"
    }

    /// A count, or the sum of a `{REASON: n}` object.
    static func total(_ value: JSONValue?) -> JSONValue? {
        guard let reasons = value?.objectValue else { return value }
        return .integer(reasons.values.reduce(0) { $0 + ($1.integerValue ?? 0) })
    }

    static func number(_ value: JSONValue?) -> String {
        guard let value, !value.isNull else { return "-" }
        return DisplayText.value(value)
    }
}
