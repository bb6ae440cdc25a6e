import Foundation
import TidingsModel

/// The person-readable forms of `tidings payload inspect` and `lint`.
enum PayloadTextRenderer {
    static func inspect(_ report: PayloadReport) -> String {
        let payload = report.payload
        var text = TwoColumnText(minimumLabelWidth: 12)
        text.row("Dialect", payload.dialect.rawValue)
        text.row("Kind", payload.kind.rawValue)
        text.row("Delivery", payload.delivery.rawValue.replacingOccurrences(of: "_", with: " "))
        text.row("Message", payload.messageID ?? "—")
        text.row("Campaign", payload.campaignID ?? "—")
        if let appID = payload.appID { text.row("App", appID) }
        if let sentAt = payload.sentAt { text.row("Sent", format(sentAt)) }

        text.blank()
        addAlert(payload.alert, to: &text)

        text.blank()
        addPresentation(payload, to: &text)

        text.blank()
        text.row("Action", describe(payload.defaultAction))
        if payload.buttons.isEmpty {
            text.row("Buttons", "none")
        } else {
            text.row("Buttons", "")
            for button in payload.buttons { text.subrow(button.id.isEmpty ? "(no id)" : button.id, describe(button)) }
        }
        text.row("Media", payload.media.map(describe) ?? "none")
        if let coupon = payload.coupon { text.row("Coupon", coupon) }
        let inbox = payload.inbox.map { $0.expiresAt.map { "kept until \(format($0))" } ?? "kept until deleted" }
        text.row("Inbox", inbox ?? "none")

        text.blank()
        addObject("Data", payload.data, to: &text)
        if !payload.unrecognized.isEmpty { addObject("Unrecognized", payload.unrecognized, to: &text) }

        text.blank()
        if report.warnings.isEmpty {
            text.row("Warnings", "none")
        } else {
            text.row("Warnings", "")
            for warning in report.warnings { text.subrow(warning.severity.rawValue, describe(warning)) }
        }
        text.row("Size", size(report))
        return text.render()
    }

    static func lint(_ report: PayloadReport, source: String) -> String {
        var text = TwoColumnText(minimumLabelWidth: 7)
        for warning in report.warnings { text.row(warning.severity.rawValue, describe(warning)) }
        let counts = PayloadWarning.Severity.allCases.map { severity in
            let count = report.count(of: severity)
            let noun = severity == .info ? "info" : severity.rawValue + (count == 1 ? "" : "s")
            return "\(count) \(noun)"
        }
        let size = size(report).replacingOccurrences(of: " (", with: ", ").replacingOccurrences(of: ")", with: "")
        let summary =
            report.warnings.isEmpty
            ? "\(source): no problems found (\(payloadSummary(report)), \(size))"
            : "\(source): \(counts.joined(separator: ", ")) (\(payloadSummary(report)), \(size))"
        return text.render() + summary + "\n"
    }

    /// `933 of 4096 bytes (812 compact)`; the compact size only when it differs.
    private static func size(_ report: PayloadReport) -> String {
        let compact = report.compactSizeInBytes.flatMap { $0 == report.sizeInBytes ? nil : " (\($0) compact)" }
        return "\(report.sizeInBytes) of \(report.sizeLimit) bytes" + (compact ?? "")
    }

    private static func payloadSummary(_ report: PayloadReport) -> String {
        "\(report.payload.dialect.rawValue) \(report.payload.kind.rawValue) push"
    }

    private static func addAlert(_ alert: PushAlert?, to text: inout TwoColumnText) {
        guard let alert else {
            text.row("Alert", "none")
            return
        }
        text.row("Alert", alert.isEmpty ? "empty" : "")
        let rows: [(String, String?)] = [
            ("Title", alert.title), ("Subtitle", alert.subtitle), ("Body", alert.body),
            ("Title key", alert.titleLocKey.map { withArguments($0, alert.titleLocArgs) }),
            ("Subtitle key", alert.subtitleLocKey.map { withArguments($0, alert.subtitleLocArgs) }),
            ("Body key", alert.locKey.map { withArguments($0, alert.locArgs) }),
            ("Launch image", alert.launchImage),
        ]
        for (label, value) in rows { if let value { text.subrow(label, value) } }
    }

    private static func addPresentation(_ payload: PushPayload, to text: inout TwoColumnText) {
        if let sound = payload.sound {
            var notes: [String] = []
            if sound.isCritical { notes.append("critical") }
            if let volume = sound.volume { notes.append("volume \(volume)") }
            text.row("Sound", sound.name + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"))
        } else {
            text.row("Sound", "none")
        }
        switch payload.badge {
        case .none: text.row("Badge", "unchanged")
        case .set(let count): text.row("Badge", "set to \(count)")
        case .increment(let count): text.row("Badge", "increment by \(count)")
        case .clear: text.row("Badge", "clear")
        }
        if let category = payload.category { text.row("Category", category) }
        if let thread = payload.threadID { text.row("Thread", thread) }
        if let level = payload.interruptionLevel { text.row("Interruption", level.rawValue) }
        if let score = payload.relevanceScore { text.row("Relevance", "\(score)") }
        if let target = payload.targetContentID { text.row("Target content", target) }
        let flags = [
            payload.mutableContent ? "mutable-content" : nil, payload.contentAvailable ? "content-available" : nil,
            payload.isInternal ? "internal" : nil,
        ].compactMap { $0 }
        text.row("Flags", flags.isEmpty ? "none" : flags.joined(separator: ", "))
    }

    private static func addObject(_ label: String, _ object: [String: JSONValue], to text: inout TwoColumnText) {
        guard !object.isEmpty else {
            text.row(label, "none")
            return
        }
        text.row(label, "")
        for key in object.keys.sorted() { text.subrow(key, compact(object[key]!)) }
    }

    private static func describe(_ action: PushAction?) -> String {
        switch action {
        case nil: return "open app (system default)"
        case .openApp?: return "open app"
        case .deepLink(let url)?: return "deep link \(url)"
        case .web(let url, let inApp)?: return "web \(url)" + (inApp ? " (in-app browser)" : " (browser)")
        case .screen(let name, let parameters)?:
            return "screen \(name)" + (parameters.isEmpty ? "" : " \(compact(.object(parameters)))")
        case .coupon(let code)?: return "coupon \(code)"
        }
    }

    private static func describe(_ button: PushButton) -> String {
        let action: String
        switch button.action {
        case .openApp: action = "open app"
        case .deepLink(let url): action = "deep link \(url)"
        case .web(let url, let inApp): action = "web \(url)" + (inApp ? " (in-app browser)" : "")
        case .reply(let placeholder, let submit):
            action =
                "reply" + (placeholder.map { " placeholder \"\($0)\"" } ?? "")
                + (submit.map { " submit \"\($0)\"" } ?? "")
        case .dismiss: action = "dismiss"
        case .custom: action = "custom (handled by the app)"
        }
        var notes: [String] = []
        if button.isDestructive { notes.append("destructive") }
        if button.requiresAuthentication { notes.append("needs unlock") }
        return "\"\(button.title)\" \(action)" + (notes.isEmpty ? "" : " [\(notes.joined(separator: ", "))]")
    }

    private static func describe(_ media: PushMedia) -> String {
        let source: String
        switch media.source {
        case .remote(let url): source = url
        case .bundled(let name): source = "bundled \(name)"
        }
        let details = [media.fileExtension.map { ".\($0)" }, media.mimeType].compactMap { $0 }
        return "\(media.kind.rawValue) \(source)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    private static func describe(_ warning: PayloadWarning) -> String {
        "\(warning.code.rawValue): \(warning.message)" + (warning.path.map { " [\($0)]" } ?? "")
    }

    private static func withArguments(_ key: String, _ arguments: [String]?) -> String {
        guard let arguments, !arguments.isEmpty else { return key }
        return "\(key) (\(arguments.joined(separator: ", ")))"
    }

    private static func compact(_ value: JSONValue) -> String {
        (try? value.serializedString(sortedKeys: true)) ?? "\(value)"
    }

    private static func format(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(date) + " (\(Int64(date.timeIntervalSince1970.rounded(.down))))"
    }
}
