import Foundation
import Testing
import TidingsModel

/// The native dialect, key by key.
@Suite struct NativeDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "envelope fields",
            #"{"tidings": {"v": 1, "id": "m", "cid": "c", "app": "a", "sent": 1700000000123, "internal": true}}"#,
            PushPayload(
                messageID: "m", campaignID: "c", appID: "a", sentAt: Date(millisecondsSince1970: 1_700_000_000_123),
                isInternal: true)),
        DecodingCase(
            "sent is milliseconds, even as a string", #"{"tidings": {"sent": "1700000000000"}}"#,
            PushPayload(sentAt: Date(timeIntervalSince1970: 1_700_000_000))),
        DecodingCase(
            "increment badge wins over aps.badge, which is kept",
            #"{"aps": {"badge": 4}, "tidings": {"badge": {"op": "increment", "by": 2}}}"#,
            PushPayload(badge: .increment(2), unrecognized: ["aps": ["badge": 4]])),
        DecodingCase(
            "increment defaults to one", #"{"tidings": {"badge": {"op": "increment"}}}"#,
            PushPayload(badge: .increment(1))),
        DecodingCase(
            "other badge ops are leftovers", #"{"aps": {"badge": 3}, "tidings": {"badge": {"op": "set", "by": 2}}}"#,
            PushPayload(badge: .set(3), unrecognized: ["tidings": ["badge": ["op": "set", "by": 2]]])),
        DecodingCase(
            "deeplink action", #"{"tidings": {"action": {"type": "deeplink", "url": "app://x"}}}"#,
            PushPayload(defaultAction: .deepLink(url: "app://x"))),
        DecodingCase(
            "web action in app", #"{"tidings": {"action": {"type": "web", "url": "https://x", "in_app": 1}}}"#,
            PushPayload(defaultAction: .web(url: "https://x", inApp: true))),
        DecodingCase(
            "screen action", #"{"tidings": {"action": {"type": "screen", "screen": "cart", "params": {"id": 3}}}}"#,
            PushPayload(defaultAction: .screen(name: "cart", parameters: ["id": 3]))),
        DecodingCase(
            "coupon and open_app",
            #"{"tidings": {"coupon": "X1", "action": {"type": "coupon", "code": "X1", "extra": 1}}}"#,
            PushPayload(
                defaultAction: .coupon(code: "X1"), coupon: "X1", unrecognized: ["tidings": ["action": ["extra": 1]]])),
        DecodingCase(
            "unknown action type is kept whole", #"{"tidings": {"action": {"type": "teleport"}}}"#,
            PushPayload(unrecognized: ["tidings": ["action": ["type": "teleport"]]])),
        DecodingCase(
            "deeplink without url is kept whole", #"{"tidings": {"action": {"type": "deeplink"}}}"#,
            PushPayload(unrecognized: ["tidings": ["action": ["type": "deeplink"]]])),
        DecodingCase(
            "buttons of every type",
            """
            {"tidings": {"buttons": [
              {"id": "o", "title": "Open", "type": "open_app", "auth": true},
              {"id": "d", "title": "Deep", "type": "deeplink", "url": "app://d"},
              {"id": "w", "title": "Web", "type": "web", "url": "https://w", "in_app": "true"},
              {"id": "r", "title": "Reply", "type": "reply", "placeholder": "Say", "submit": "Send"},
              {"id": "x", "title": "Delete", "type": "dismiss", "destructive": 1},
              {"title": "Custom", "type": "custom"}
            ]}}
            """,
            PushPayload(buttons: [
                PushButton(id: "o", title: "Open", action: .openApp, requiresAuthentication: true),
                PushButton(id: "d", title: "Deep", action: .deepLink(url: "app://d")),
                PushButton(id: "w", title: "Web", action: .web(url: "https://w", inApp: true)),
                PushButton(id: "r", title: "Reply", action: .reply(placeholder: "Say", submitTitle: "Send")),
                PushButton(id: "x", title: "Delete", action: .dismiss, isDestructive: true),
                PushButton(id: "button6", title: "Custom", action: .custom),
            ])),
        DecodingCase(
            "invalid buttons and leftover keys are kept as elements",
            #"{"tidings": {"buttons": [{"id": "a", "title": "A", "type": "open_app", "icon": "star"}, {"title": "B", "type": "web"}, 7]}}"#,
            PushPayload(
                buttons: [PushButton(id: "a", title: "A", action: .openApp)],
                unrecognized: [
                    "tidings": ["buttons": [["id": "a", "icon": "star"], ["title": "B", "type": "web"], 7]]
                ])),
        DecodingCase(
            "remote media inferred from the URL", #"{"tidings": {"media": {"url": "https://x/a.mp4"}}}"#,
            PushPayload(
                media: PushMedia(
                    source: .remote(url: "https://x/a.mp4"), kind: .video, fileExtension: "mp4", mimeType: "video/mp4"))
        ),
        DecodingCase(
            "bundled media with explicit type",
            #"{"tidings": {"media": {"resource": "a.caf", "type": "audio", "mime": "audio/x-caf", "w": 1}}}"#,
            PushPayload(
                media: PushMedia(
                    source: .bundled(name: "a.caf"), kind: .audio, fileExtension: "caf", mimeType: "audio/x-caf"),
                unrecognized: ["tidings": ["media": ["w": 1]]])),
        DecodingCase(
            "inbox with expiry in seconds or ms, or without",
            #"{"tidings": {"inbox": {"expires_at": 1800000000000}}}"#,
            PushPayload(inbox: InboxPolicy(expiresAt: Date(timeIntervalSince1970: 1_800_000_000)))),
        DecodingCase("inbox without expiry", #"{"tidings": {"inbox": {}}}"#, PushPayload(inbox: InboxPolicy())),
        DecodingCase(
            "top-level keys are data; tidings.data wins",
            #"{"aps": {}, "tidings": {"data": {"k": "explicit", "n": 1}}, "k": "top", "other": [1]}"#,
            PushPayload(data: ["k": "explicit", "n": 1, "other": [1]])),
        DecodingCase(
            "unknown tidings keys and other versions are leftovers", #"{"tidings": {"v": 2, "template": "carousel"}}"#,
            PushPayload(unrecognized: ["tidings": ["v": 2, "template": "carousel"]])),
        DecodingCase(
            "wrong types are leftovers", #"{"tidings": {"id": [], "internal": "maybe", "data": 3, "buttons": {}}}"#,
            PushPayload(unrecognized: ["tidings": ["id": [], "internal": "maybe", "data": 3, "buttons": [:]]])),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
