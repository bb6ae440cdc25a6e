import Foundation
import TidingsModel

/// A split test that picks its winner (`winner` of `GET /v1/messages/{id}`), or the test a follow-up sends the
/// winner of (`follow_up_of`), for people.
///
/// ```
/// Winner      decided: b (significant)
/// Test share  20% (decided 4h after the test's sends, at 95% confidence; if inconclusive: best)
/// Decided     2027-01-15T13:00:00.000Z
/// Follow-up   msg_…
///
/// VARIANT  RECIPIENTS  CONVERTED   RATE  95% INTERVAL
/// a               412         29   7.0%  4.9% to 9.9%
/// b               405         52  12.8%  9.9% to 16.4%
/// control         201          9   4.5%  2.4% to 8.3%
/// b leads a by +5.8 pts (+1.8 to +9.8)
/// ```
enum WinnerText {
    /// Nothing for a message that neither tests for a winner nor sends one.
    static func render(_ message: JSONValue) -> String {
        if let parent = message["follow_up_of"]?.stringValue {
            return "\nThe winner of the split test \(parent), sent to the rest of its audience\n"
        }
        guard let winner = message["winner"], winner.objectValue != nil else { return "" }
        let state = winner["state"]?.stringValue ?? "?"
        let confidence = WinnerText.percent(winner["confidence"])
        var header = TwoColumnText()
        if state == "decided", let variant = winner["variant"]?.stringValue {
            let significant = winner["significant"] == .bool(true) ? "significant" : "inconclusive"
            header.row("Winner", "decided: \(variant) (\(significant))")
        } else {
            header.row("Winner", state)
        }
        let after = winner["after_seconds"]?.integerValue.map(BreakdownText.duration) ?? "?"
        header.row(
            "Test share",
            "\(percent(winner["test_share"])) (decided \(after) after the test's sends, at \(confidence) confidence; "
                + "if inconclusive: \(winner["if_inconclusive"]?.stringValue ?? "best"))")
        for (label, key) in [("Decide at", "decide_at"), ("Decided", "decided_at")] {
            if case .integer(let milliseconds)? = winner[key] { header.row(label, DisplayText.timestamp(milliseconds)) }
        }
        if let followUp = winner["follow_up_message_id"]?.stringValue { header.row("Follow-up", followUp) }
        var text = "\n" + header.render()
        guard let variants = winner["variants"]?.arrayValue, !variants.isEmpty else { return text }
        var table = ColumnText([
            ("VARIANT", .left), ("RECIPIENTS", .right), ("CONVERTED", .right), ("RATE", .right),
            ("\(confidence) INTERVAL", .left),
        ])
        for variant in variants {
            table.row([
                variant["variant"]?.stringValue ?? "?", FunnelText.number(variant["recipients"]),
                FunnelText.number(variant["converted"]), FunnelText.percent(variant["rate"]),
                (variant["low"] ?? .null).isNull
                    ? "-" : "\(FunnelText.percent(variant["low"])) to \(FunnelText.percent(variant["high"]))",
            ])
        }
        text += "\n" + table.render()
        if let lead = winner["lead"], lead.objectValue != nil, let best = winner["best"]?.stringValue {
            let points = ["difference", "low", "high"].map { key -> String in
                guard case .double(let value)? = lead[key] else { return "?" }
                return String(format: "%+.1f", value * 100)
            }
            text +=
                "\(best) leads \(lead["versus"]?.stringValue ?? "?") by \(points[0]) pts (\(points[1]) to \(points[2]))\n"
        }
        return text
    }

    /// A share as a whole percentage where it is one: 20%, 97.5%.
    static func percent(_ value: JSONValue?) -> String {
        let share: Double
        switch value {
        case .double(let number)?: share = number
        case .integer(let number)?: share = Double(number)
        default: return "?"
        }
        let tenths = (share * 1000).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths))%" : "\(tenths)%"
    }
}
