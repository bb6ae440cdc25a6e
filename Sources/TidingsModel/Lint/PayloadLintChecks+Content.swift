/// Checks of what the push shows and how it is delivered.
extension PayloadLintChecks {
    static func payloadTooLarge(_ input: PayloadLintInput) -> [Finding] {
        guard input.sizeInBytes > input.sizeLimit else { return [] }
        let kind = input.isVoIP ? "a VoIP push" : "a push (5120 for VoIP)"
        let fix =
            if let compact = input.compactSizeInBytes, compact <= input.sizeLimit {
                "send it without whitespace (\(compact) bytes compact)"
            } else {
                "shorten the text or move data behind a URL"
            }
        return [
            Finding(
                "payload is \(input.sizeInBytes) bytes, over APNs' limit of \(input.sizeLimit) bytes for \(kind); "
                    + "APNs rejects it with 413 PayloadTooLarge — \(fix)")
        ]
    }

    /// Apple and Braze both call `content-available` together with alert text undefined behaviour.
    static func backgroundWithAlert(_ input: PayloadLintInput) -> [Finding] {
        guard input.payload.contentAvailable, hasAlertText(input.payload) else { return [] }
        return [
            Finding(
                "content-available with alert text: the background wake-up is not guaranteed (Apple and Braze "
                    + "call the mix undefined) — send the alert and the background push separately",
                path: "aps.content-available")
        ]
    }

    /// A background push should carry nothing visible; sound or badge makes iOS treat it as a visible one.
    static func backgroundWithSoundOrBadge(_ input: PayloadLintInput) -> [Finding] {
        let payload = input.payload
        guard payload.contentAvailable, !hasAlertText(payload), payload.sound != nil || payload.badge != .none
        else { return [] }
        let parts = [payload.sound != nil ? "sound" : nil, payload.badge != .none ? "badge" : nil].compactMap { $0 }
        return [
            Finding(
                "background push (content-available, no alert) also sets \(parts.joined(separator: " and ")); "
                    + "Apple asks background pushes to carry neither — send them in a separate push",
                path: "aps")
        ]
    }

    /// Media, buttons and badge increments are done by the Notification Service Extension.
    static func mutableContentMissing(_ input: PayloadLintInput) -> [Finding] {
        let payload = input.payload
        guard !payload.mutableContent else { return [] }
        var needs: [String] = []
        if payload.media != nil { needs.append("media") }
        if !payload.buttons.isEmpty { needs.append("buttons") }
        if case .increment = payload.badge { needs.append("badge increment") }
        guard !needs.isEmpty else { return [] }
        return [
            Finding(
                "\(needs.joined(separator: ", ")) without mutable-content: the Notification Service Extension "
                    + "never runs, so \(needs.count == 1 ? "it is" : "they are") lost — set \"mutable-content\": 1",
                path: "aps.mutable-content")
        ]
    }

    /// iOS runs the extension only for pushes that show an alert.
    static func mutableContentWithoutAlert(_ input: PayloadLintInput) -> [Finding] {
        guard input.payload.mutableContent, !hasAlertText(input.payload) else { return [] }
        return [
            Finding(
                "mutable-content without alert text: iOS runs the Notification Service Extension only for pushes "
                    + "that show an alert, so media, buttons and delivery tracking never happen",
                path: "aps.mutable-content")
        ]
    }

    /// `alert: ""`, `alert: {}` or an alert with neither text nor a localisation key shows nothing.
    static func emptyAlert(_ input: PayloadLintInput) -> [Finding] {
        // A background push may carry a stray empty alert; the background rules cover it.
        guard !input.payload.contentAvailable else { return [] }
        let raw = input.aps?["alert"]
        let rawEmpty: Bool
        switch raw {
        case .string(let text)?: rawEmpty = text.allSatisfy(\.isWhitespace)
        case .object(let alert)?:
            let textKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]
            rawEmpty = !textKeys.contains { !(alert[$0]?.stringValue ?? "").isEmpty }
        default: rawEmpty = false
        }
        guard rawEmpty || (raw == nil && input.payload.alert?.isEmpty == true) else { return [] }
        return [
            Finding(
                "the alert has no title, body or localisation key: iOS shows no text — "
                    + "add text or remove the alert", path: raw == nil ? nil : "aps.alert")
        ]
    }

    /// Arguments without a key are never substituted into anything.
    static func locArgsWithoutKey(_ input: PayloadLintInput) -> [Finding] {
        guard let alert = input.payload.alert else { return [] }
        let pairs: [(args: [String]?, key: String?, name: String)] = [
            (alert.titleLocArgs, alert.titleLocKey, "title"), (alert.subtitleLocArgs, alert.subtitleLocKey, "subtitle"),
            (alert.locArgs, alert.locKey, ""),
        ]
        return pairs.compactMap { args, key, name in
            guard args != nil, key == nil else { return nil }
            let prefix = name.isEmpty ? "" : "\(name)-"
            return Finding(
                "\(prefix)loc-args without \(prefix)loc-key: the arguments are ignored — add the key",
                path: "aps.alert.\(prefix)loc-args")
        }
    }

    /// iOS reads `relevance-score` as 0…1 (Live Activities, with `aps.event`, may use any number).
    static func relevanceScoreOutOfRange(_ input: PayloadLintInput) -> [Finding] {
        guard input.aps?["event"] == nil,
            let score = input.payload.relevanceScore ?? number(input.aps?["relevance-score"]),
            !(0...1).contains(score)
        else { return [] }
        return [
            Finding(
                "relevance-score is \(score), outside 0…1, the range iOS reads — use a number from 0 to 1",
                path: "aps.relevance-score")
        ]
    }

    static func unknownInterruptionLevel(_ input: PayloadLintInput) -> [Finding] {
        guard
            let level = input.payload.interruptionLevel?.rawValue ?? input.aps?["interruption-level"]?.stringValue,
            !InterruptionLevel.documented.contains(InterruptionLevel(rawValue: level))
        else { return [] }
        let known = InterruptionLevel.documented.map(\.rawValue).joined(separator: ", ")
        return [
            Finding(
                "interruption-level \"\(level)\" is not documented (\(known)); iOS does not recognise it",
                path: "aps.interruption-level")
        ]
    }

    static func criticalVolumeOutOfRange(_ input: PayloadLintInput) -> [Finding] {
        guard let volume = input.payload.sound?.volume ?? number(input.aps?["sound"]?["volume"]),
            !(0...1).contains(volume)
        else { return [] }
        return [
            Finding(
                "critical alert sound volume is \(volume), outside 0…1 (0 silent, 1 full volume)",
                path: "aps.sound.volume")
        ]
    }

    /// iOS plays custom notification sounds only from Linear PCM, MA4, µ-law or a-law audio in these containers.
    static let playableSoundExtensions: Set<String> = ["aiff", "aif", "aifc", "wav", "caf"]

    static func unsupportedSoundFile(_ input: PayloadLintInput) -> [Finding] {
        guard let name = input.payload.sound?.name, name != "default", !name.isEmpty else { return [] }
        let ext = LintURL.fileExtension(of: name)
        guard ext.map({ !playableSoundExtensions.contains($0) }) ?? true else { return [] }
        let problem = ext.map { "a .\($0) file" } ?? "a name without a file extension"
        return [
            Finding(
                "sound \"\(name)\" is \(problem); iOS plays custom sounds only from .aiff, .wav or .caf files "
                    + "(30 s at most) in the app bundle or Library/Sounds, else the default sound",
                path: "aps.sound")
        ]
    }

    static func inboxExpired(_ input: PayloadLintInput) -> [Finding] {
        guard let expiry = input.payload.inbox?.expiresAt, expiry < input.now else { return [] }
        return [
            Finding(
                "inbox entry expired at \(format(expiry)), before now (\(format(input.now))); it is purged on "
                    + "arrival — move the expiry into the future")
        ]
    }

    /// Without a message id, delivery and open events cannot be de-duplicated or joined to a send.
    static func missingMessageID(_ input: PayloadLintInput) -> [Finding] {
        guard input.payload.messageID == nil, input.payload.kind != .internal else { return [] }
        return [
            Finding(
                "no message id: delivery and open events cannot be de-duplicated or counted against a send")
        ]
    }

    /// Vendor keys the model kept but does not understand (unknown `aps` keys have their own rule).
    static func unrecognizedKeys(_ input: PayloadLintInput) -> [Finding] {
        var paths: [String] = []
        for (key, value) in input.payload.unrecognized where key != "aps" {
            collectLeaves(value, path: key, into: &paths)
        }
        guard !paths.isEmpty else { return [] }
        return [Finding("kept but not understood by Tidings: \(list(paths.sorted()))")]
    }

    private static func collectLeaves(_ value: JSONValue, path: String, into paths: inout [String]) {
        guard case .object(let object) = value, !object.isEmpty else {
            paths.append(path)
            return
        }
        for (key, child) in object { collectLeaves(child, path: "\(path).\(key)", into: &paths) }
    }
}
