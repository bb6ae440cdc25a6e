import Foundation
import TidingsModel

/// A message's funnel per variant and per language (`variants` and `languages` of its funnel), as tables.
///
/// ```
/// VARIANT  TARGETS  SENT  DELIVERED  OPENED  OPEN RATE  VS a (95% CI)
/// a           4512  4512       4390     812      18.5%
/// b           4488  4488       4375     934      21.3%  +2.9 pts (+1.2 to +4.5) significant
/// control     1000     0          0       0          -
///
/// CONVERSIONS (purchase within 24h of delivery)
/// VARIANT  RECIPIENTS  CONVERTED  RATE  95% CI        VS control (95% CI)
/// a              4390        312  7.1%  6.4% to 7.9%  +2.2 pts (+0.7 to +3.8) significant
/// control        1000         49  4.9%  3.7% to 6.4%
/// ```
enum BreakdownText {
    /// The tables for what `funnel` breaks down; empty when it has neither variants nor languages.
    static func render(funnel: JSONValue) -> String {
        var text = ""
        if let variants = funnel["variants"]?.arrayValue, !variants.isEmpty {
            let first = variants.first?["variant"]?.stringValue ?? "first"
            text += "\n" + table(variants, key: "variant", title: "VARIANT", comparison: "VS \(first) (95% CI)")
            if let goal = funnel["conversion"], variants.contains(where: { $0["conversions"] != nil }) {
                text += "\n" + conversions(variants, goal: goal)
            }
        }
        if let languages = funnel["languages"]?.arrayValue, !languages.isEmpty {
            text += "\n" + table(languages, key: "language", title: "LANGUAGE", comparison: nil)
        }
        return text
    }

    private static func table(_ groups: [JSONValue], key: String, title: String, comparison: String?) -> String {
        var columns: [(String, ColumnText.Alignment)] = [
            (title, .left), ("TARGETS", .right), ("SENT", .right), ("DELIVERED", .right), ("OPENED", .right),
            ("OPEN RATE", .right),
        ]
        if let comparison { columns.append((comparison, .left)) }
        var table = ColumnText(columns)
        for group in groups {
            var row = [
                group[key]?.stringValue ?? "?", FunnelText.number(group["targets"]), FunnelText.number(group["sent"]),
                FunnelText.number(group["unique"]?["delivered"]), FunnelText.number(group["unique"]?["opened"]),
                FunnelText.percent(group["rates"]?["open_rate"]),
            ]
            if comparison != nil { row.append(difference(group["open_rate_difference"])) }
            table.row(row)
        }
        return table.render()
    }

    /// The conversions of each variant, the control group included, with their intervals.
    private static func conversions(_ variants: [JSONValue], goal: JSONValue) -> String {
        let event = goal["event"]?.stringValue ?? "?"
        let from = goal["from"]?.stringValue ?? "delivery"
        let within = goal["within_seconds"]?.integerValue.map(duration) ?? "?"
        let reference = variants.lazy.compactMap { $0["conversions"]?["difference"]?["versus"]?.stringValue }.first
        var table = ColumnText([
            ("VARIANT", .left), ("RECIPIENTS", .right), ("CONVERTED", .right), ("RATE", .right), ("95% CI", .left),
            ("VS \(reference ?? "-") (95% CI)", .left),
        ])
        for variant in variants {
            let counts = variant["conversions"] ?? .null
            let low = FunnelText.percent(counts["ci95_low"])
            let high = FunnelText.percent(counts["ci95_high"])
            table.row([
                variant["variant"]?.stringValue ?? "?", FunnelText.number(counts["recipients"]),
                FunnelText.number(counts["converted"]), FunnelText.percent(counts["rate"]),
                (counts["ci95_low"] ?? .null).isNull ? "-" : "\(low) to \(high)",
                difference(counts["difference"]),
            ])
        }
        return "CONVERSIONS (\(event) within \(within) of \(from))\n" + table.render()
    }

    /// `24h`, `30m`, `7d` or seconds.
    static func duration(_ seconds: Int64) -> String {
        for (unit, length) in [("d", Int64(86400)), ("h", 3600), ("m", 60)] where seconds % length == 0 {
            return "\(seconds / length)\(unit)"
        }
        return "\(seconds)s"
    }

    /// `+2.9 pts (+1.2 to +4.5) significant`, or empty.
    static func difference(_ value: JSONValue?) -> String {
        func points(_ key: String) -> String? {
            let number: Double
            switch value?[key] {
            case .double(let double)?: number = double
            case .integer(let integer)?: number = Double(integer)
            default: return nil
            }
            return String(format: "%+.1f", number * 100)
        }
        guard let difference = points("difference"), let low = points("ci95_low"), let high = points("ci95_high")
        else { return "" }
        let verdict = value?["significant"] == .bool(true) ? "significant" : "not significant"
        return "\(difference) pts (\(low) to \(high)) \(verdict)"
    }
}
