import TidingsModel

/// The demo's one line on a dry run: how many would get the campaign, why the others would not, and what the
/// first simulated device would show of the first rendering.
enum DemoDryRun {
    static func summary(of answer: JSONValue) -> String {
        let reach = answer["reach"]
        var line = "\(reach?["would_send"]?.integerValue ?? 0) would get it"
        let skipped = (reach?["skipped"]?.objectValue ?? [:]).compactMap { reason, count in
            (count.integerValue ?? 0) > 0 ? "\(count.integerValue ?? 0) \(reason)" : nil
        }.sorted()
        if !skipped.isEmpty { line += ", skipped: " + skipped.joined(separator: ", ") }
        let renderings = answer["renderings"]?.arrayValue ?? []
        line += "; \(renderings.count) renderings"
        if let preview = renderings.first?["device_previews"]?.arrayValue?.first {
            let title = preview["title"]?.stringValue ?? ""
            let image = preview["image"]?["attached"] == true ? "with its image" : "without an image"
            let buttons = preview["buttons"]?.arrayValue?.count ?? 0
            line +=
                "; \(preview["device"]?.stringValue ?? "a device") shows \"\(title)\" \(image) and \(buttons) buttons"
        }
        return line
    }
}
