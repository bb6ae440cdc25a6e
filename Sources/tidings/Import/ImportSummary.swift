import Foundation
import TidingsModel

/// What one `tidings import` did, added up over its parts.
struct ImportSummary {
    var importID: String
    var profile: String
    var dryRun: Bool
    /// Rows sent this run, and rows an earlier run of the same import had done.
    var rows = 0
    var skipped = 0
    var imported = 0
    var updated = 0
    var unchanged = 0
    var rejected = 0
    var seconds: Double = 0
    /// Where the refused rows are; nil when none were.
    var reportPath: String?
    /// The first few refusals, shown with the summary.
    var firstErrors: [JSONValue] = []

    var rate: Int { seconds > 0 ? Int(Double(rows) / seconds) : rows }

    mutating func add(_ answer: JSONValue) {
        func count(_ name: String) -> Int { answer[name]?.integerValue.map(Int.init) ?? 0 }
        rows += count("rows") - count("skipped")
        skipped += count("skipped")
        imported += count("imported")
        updated += count("updated")
        unchanged += count("unchanged")
        rejected += count("rejected")
    }

    var text: String {
        var lines = [
            "\(dryRun ? "dry run of import" : "import") \(importID) (\(profile)): \(rows) rows in "
                + String(format: "%.1f", seconds) + " s (\(rate) rows/s)",
            "  \(dryRun ? "would import" : "imported") \(imported), updated \(updated), unchanged \(unchanged), rejected \(rejected)"
                + (skipped > 0 ? "; \(skipped) rows done by an earlier run were skipped" : ""),
        ]
        for error in firstErrors {
            let row = error["row"]?.integerValue ?? 0
            let column = error["column"]?.stringValue ?? ""
            lines.append(
                "  row \(row)\(column.isEmpty ? "" : ", \(column)"): \(error["rule"]?.stringValue ?? "") — \(error["message"]?.stringValue ?? "")"
            )
        }
        if rejected > firstErrors.count { lines.append("  ...") }
        if let reportPath { lines.append("every refused row: \(reportPath)") }
        return lines.joined(separator: "\n")
    }

    var json: JSONValue {
        .object([
            "import_id": .string(importID), "profile": .string(profile), "dry_run": .bool(dryRun),
            "rows": .integer(Int64(rows)), "skipped": .integer(Int64(skipped)), "imported": .integer(Int64(imported)),
            "updated": .integer(Int64(updated)), "unchanged": .integer(Int64(unchanged)),
            "rejected": .integer(Int64(rejected)), "seconds": .double(seconds),
            "rows_per_second": .integer(Int64(rate)),
            "report": reportPath.map(JSONValue.string) ?? .null,
        ])
    }
}
