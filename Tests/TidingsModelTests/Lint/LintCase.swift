import Foundation
import Testing
import TidingsModel

/// One row of the rule table test: a minimal payload a rule must flag, and a minimal one it must not.
struct LintCase: Sendable, CustomTestStringConvertible {
    var name: String
    var code: PayloadWarning.Code
    var bad: PayloadLintInput
    var good: PayloadLintInput

    var testDescription: String { "\(code): \(name)" }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A lint input with a sensible default for everything the case does not vary.
    static func input(
        _ payload: PushPayload = PushPayload(messageID: "m-1", alert: PushAlert(title: "Hi", body: "There")),
        json: String = #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#, size: Int = 100, voip: Bool = false
    ) -> PayloadLintInput {
        PayloadLintInput(payload: payload, json: parse(json), sizeInBytes: size, now: now, isVoIP: voip)
    }

    static func parse(_ text: String) -> JSONValue {
        try! JSONValue.parse(text)
    }

    /// An alert push in the native dialect with a message id: flags nothing on its own.
    static func payload(
        dialect: PushDialect = .native, messageID: String? = "m-1", alert: PushAlert? = PushAlert(title: "Hi"),
        sound: PushSound? = nil, category: String? = nil, threadID: String? = nil,
        interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil, badge: BadgeInstruction = .none,
        contentAvailable: Bool = false, mutableContent: Bool = false, isInternal: Bool = false,
        action: PushAction? = nil, buttons: [PushButton] = [], media: PushMedia? = nil, inbox: InboxPolicy? = nil,
        unrecognized: [String: JSONValue] = [:]
    ) -> PushPayload {
        PushPayload(
            dialect: dialect, messageID: messageID, alert: alert, sound: sound, category: category,
            threadID: threadID, interruptionLevel: interruptionLevel, relevanceScore: relevanceScore, badge: badge,
            contentAvailable: contentAvailable, mutableContent: mutableContent, isInternal: isInternal,
            defaultAction: action, buttons: buttons, media: media, inbox: inbox, unrecognized: unrecognized)
    }

    static func buttons(_ ids: [String], title: String = "Go") -> [PushButton] {
        ids.map { PushButton(id: $0, title: title, action: .openApp) }
    }

    static func image(_ url: String, kind: PushMedia.Kind = .image) -> PushMedia {
        PushMedia(source: .remote(url: url), kind: kind)
    }
}
