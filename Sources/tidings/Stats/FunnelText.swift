import Foundation
import TidingsModel

/// A funnel (the `Funnel` schema of docs/openapi.yaml) as a table for people, with a message's delivery
/// counts on top when there are any.
///
/// ```
/// STAGE           EVENTS  INSTALLATIONS   RATE
/// targets              3
/// sent                 3
/// delivered            2              2
/// opened               1              1  50.0%
/// ```
///
/// Rates divide distinct installations by the distinct installations delivered to (the server computes them, and
/// defines the stages: opened counts an opening through a button that opens the app, actions are of delivered).
enum FunnelText {
    /// The table for `funnel`; `counts` is a message's `counts` object (targets, sent, failed, skipped, cancelled).
    static func render(funnel: JSONValue, counts: JSONValue? = nil) -> String {
        var table = ColumnText([
            ("STAGE", .left), ("EVENTS", .right), ("INSTALLATIONS", .right), ("RATE", .right),
        ])
        if let counts {
            for name in ["targets", "queued", "in_flight", "sent", "failed", "skipped", "cancelled"] {
                table.row([name.replacingOccurrences(of: "_", with: " "), number(counts[name])])
            }
            for (name, reasons) in [("failed", counts["failed_by_reason"]), ("skipped", counts["skipped_by_reason"])] {
                for (reason, count) in (reasons?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    table.row(["  \(name): \(reason)", number(count)])
                }
            }
        }
        let unique = funnel["unique"]
        let rates = funnel["rates"]
        let stages: [(name: String, key: String, rate: String?)] = [
            ("delivered", "delivered", nil), ("opened", "opened", "open_rate"),
            ("dismissed", "dismissed", "dismiss_rate"), ("link opens", "link_open", nil),
            ("deeplink opens", "deeplink_open", nil), ("actions", "actions", "action_rate"),
        ]
        for stage in stages {
            table.row([
                stage.name, number(funnel[stage.key]), number(unique?[stage.key]),
                stage.rate.map { percent(rates?[$0]) } ?? "",
            ])
        }
        table.row(["clicks (links)", "", "", percent(rates?["click_rate"])])
        return table.render()
    }

    /// The rows of a message's or campaign's header: id, state, kind, campaign.
    static func header(_ json: JSONValue) -> String {
        var text = TwoColumnText()
        for (label, key) in [
            ("Message", "message_id"), ("Campaign", "campaign_id"), ("State", "state"), ("Kind", "kind"),
            ("Type", "message_type"),
        ] {
            if let value = json[key]?.stringValue { text.row(label, value) }
        }
        for (label, key) in [("Created", "created_at"), ("Finished", "finished_at")] {
            if case .integer(let milliseconds)? = json[key] { text.row(label, DisplayText.timestamp(milliseconds)) }
        }
        if case .integer(let installations)? = json["unique_installations"] {
            text.row("Installations", String(installations))
        }
        return text.render()
    }

    static func number(_ value: JSONValue?) -> String {
        switch value {
        case .integer(let number)?: String(number)
        case .double(let number)?: String(number)
        default: ""
        }
    }

    /// A 0…1 rate as a percentage with one decimal; `-` while the server says null (nothing delivered yet).
    static func percent(_ value: JSONValue?) -> String {
        let rate: Double
        switch value {
        case .double(let number)?: rate = number
        case .integer(let number)?: rate = Double(number)
        default: return "-"
        }
        return String(format: "%.1f%%", rate * 100)
    }
}
