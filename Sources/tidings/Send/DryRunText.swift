import Foundation
import TidingsModel

/// `tidings send --dry-run` for a person: the reach and why the rest is skipped, the variants, the local
/// schedule, the duration, and each rendering's size, lint findings and device previews.
enum DryRunText {
    static func render(_ answer: JSONValue) -> String {
        var summary = TwoColumnText()
        summary.row("Dry run", "nothing was sent or stored")
        summary.row("Sends at", DisplayText.time(answer["send_at"]))
        summary.row("Audience", "\(count(answer["audience"]?["matched"])) matched")
        let reach = answer["reach"]
        summary.row("Would send", "\(count(reach?["would_send"]))")
        let skipped = (reach?["skipped"]?.objectValue ?? [:]).map { ($0.key, count($0.value)) }
            .filter { $0.1 > 0 }.sorted { ($1.1, $0.0) < ($0.1, $1.0) }
        summary.row(
            "Skipped",
            skipped.isEmpty
                ? "none"
                : "\(skipped.reduce(0) { $0 + $1.1 }): " + skipped.map { "\($1) \($0)" }.joined(separator: ", "))
        let deferred = count(reach?["deferred"]?["night"])
        if deferred > 0 { summary.row("Deferred", "\(deferred) ads held to 08:00 local time (sent then)") }
        summary.row("Duration", duration(answer["duration"]))
        var text = summary.render()

        let variants = answer["by_variant"]?.arrayValue ?? []
        if !variants.isEmpty {
            var table = ColumnText([("VARIANT", .left), ("WOULD SEND", .right), ("HOLDOUT", .right)])
            for variant in variants {
                table.row([
                    DisplayText.value(variant["variant"]), "\(count(variant["would_send"]))",
                    variant["holdout"].map { "\(count($0))" } ?? "",
                ])
            }
            text += "\n" + table.render()
        }
        let schedule = answer["local_schedule"]?.arrayValue ?? []
        if !schedule.isEmpty {
            var table = ColumnText([("DUE", .left), ("UTC OFFSET", .left), ("WOULD SEND", .right)])
            for wave in schedule {
                table.row([
                    DisplayText.time(wave["due_at"]), offset(wave["utc_offset_seconds"]),
                    "\(count(wave["would_send"]))",
                ])
            }
            text += "\n" + table.render()
        }
        for rendering in answer["renderings"]?.arrayValue ?? [] { text += "\n" + self.rendering(rendering) }
        let notes = answer["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if !notes.isEmpty { text += "\nNotes:\n" + notes.map { "  - " + $0 + "\n" }.joined() }
        return text
    }

    static func rendering(_ rendering: JSONValue) -> String {
        var name = [rendering["variant"], rendering["language"]].compactMap { $0?.stringValue }
            .joined(separator: " / ")
        if name.isEmpty { name = "content" }
        let bytes = count(rendering["payload_bytes"])
        let limit = count(rendering["limit_bytes"])
        var text = "Rendering \(name): \(bytes) of \(limit) bytes, "
        text += rendering["fits"] == true ? "fits" : "TOO LARGE (APNs refuses it)"
        if let installation = rendering["installation_id"]?.stringValue { text += ", for \(installation)" }
        text += "\n"
        let alert = rendering["payload"]?["aps"]?["alert"]
        for key in ["title", "subtitle", "body"] {
            if let value = alert?[key]?.stringValue { text += "  \(key): \(value)\n" }
        }
        if let value = alert?.stringValue { text += "  body: \(value)\n" }
        let lint = rendering["lint"]?.arrayValue ?? []
        for finding in lint {
            var line = "  \(DisplayText.value(finding["severity"])) \(DisplayText.value(finding["rule"]))"
            if let path = finding["path"]?.stringValue { line += " (\(path))" }
            text += line + ": \(DisplayText.value(finding["message"]))\n"
        }
        if lint.isEmpty { text += "  lint: no findings\n" }
        for preview in rendering["device_previews"]?.arrayValue ?? [] { text += devicePreview(preview) }
        return text
    }

    /// One simulated device: whether it shows the push, what, and where a tap goes.
    static func devicePreview(_ preview: JSONValue) -> String {
        var text = "  \(DisplayText.value(preview["device"])): "
        guard preview["shown"] == true else {
            return text + "not shown (\(preview["not_shown_reason"]?.stringValue ?? "no reason given"))\n"
        }
        let shown = ["title", "subtitle", "body"].compactMap { preview[$0]?.stringValue }
        text += "shows " + (shown.isEmpty ? "nothing to read" : shown.map { "\"\($0)\"" }.joined(separator: " / "))
        if let image = preview["image"], !image.isNull {
            text +=
                image["attached"] == true
                ? ", image attached" : ", no image (\(image["reason"]?.stringValue ?? "not attached"))"
        }
        let buttons = preview["buttons"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        if !buttons.isEmpty { text += ", buttons " + buttons.joined(separator: ", ") }
        if let tap = preview["tap"], !tap.isNull {
            text += ", tap: \(DisplayText.value(tap["kind"]))"
            if let destination = tap["destination"]?.stringValue { text += " \(destination)" }
            if tap["allowed"] == false { text += " (refused: \(tap["reason"]?.stringValue ?? "not allowed"))" }
        }
        if let presentation = preview["foreground_presentation"]?.arrayValue {
            text += ", in the foreground: " + presentation.compactMap(\.stringValue).joined(separator: ", ")
        }
        return text + "\n"
    }

    static func duration(_ duration: JSONValue?) -> String {
        guard let rate = duration?["rate_per_second"]?.integerValue else {
            return "no rate applies: as fast as the provider takes them"
        }
        var seconds = 0.0
        switch duration?["seconds"] {
        case .integer(let value)?: seconds = Double(value)
        case .double(let value)?: seconds = value
        default: break
        }
        let limit = duration?["limited_by"]?.stringValue == "app_ceiling" ? "the app's ceiling" : "the message's rate"
        var text = "\(span(seconds)) at \(rate)/s (\(limit))"
        if duration?["first_send_at"]?.isNull == false {
            text +=
                ", \(DisplayText.time(duration?["first_send_at"])) to \(DisplayText.time(duration?["last_send_at"]))"
        }
        return text
    }

    /// `190.0 s`, and for longer spans also in hours and minutes: `5400.0 s (1 h 30 min)`.
    static func span(_ seconds: Double) -> String {
        let text = String(format: "%.1f s", seconds)
        guard seconds >= 60 else { return text }
        let minutes = Int(seconds / 60)
        return text + (minutes >= 60 ? " (\(minutes / 60) h \(minutes % 60) min)" : " (\(minutes) min)")
    }

    private static func offset(_ value: JSONValue?) -> String {
        guard let seconds = value?.integerValue else { return "sent at once" }
        let minutes = abs(seconds) / 60
        let sign = seconds < 0 ? "-" : "+"
        let hours = minutes / 60
        let rest = minutes % 60
        return "\(sign)\(hours < 10 ? "0" : "")\(hours):\(rest < 10 ? "0" : "")\(rest)"
    }

    private static func count(_ value: JSONValue?) -> Int {
        if case .integer(let count)? = value { return Int(count) }
        return 0
    }
}
