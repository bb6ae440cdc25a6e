import Foundation

@testable import TidingsModel

/// Generates random values for property tests from a seeded generator: valid native payloads (see
/// ``PushPayload/nativeJSON`` for what "valid" means) and arbitrary JSON objects.
struct PayloadGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    mutating func maybe<T>(_ probability: Double = 0.5, _ make: (inout PayloadGenerator) -> T) -> T? {
        chance(probability) ? make(&self) : nil
    }

    /// Text with the characters payloads get wrong: quotes, escapes, non-ASCII, emoji, digits, empty.
    mutating func text() -> String {
        let alphabet: [String] = ["a", "Z", "0", "7", " ", "\"", "\\", "/", "é", "日本", "🎉", "\n", "-", ".", "{", "["]
        let count = Int.random(in: 0...12, using: &random)
        return (0..<count).map { _ in pick(alphabet) }.joined()
    }

    mutating func key() -> String {
        pick(["k", "id", "aps", "tidings", "screen", "data", "x-y", "日本", "", "1", "ab", "moengage"]) + text()
    }

    mutating func url() -> String {
        let scheme = pick(["https://", "http://", "myapp://", "moeapp://screen/"])
        let file = pick(["", "/a.png", "/b.JPG", "/c.gif", "/v.mp4", "/s.mp3", "/x", "/y.bin?q=1", "/z.heic#f"])
        return scheme + "example.com" + file
    }

    /// Any JSON value, depth-bounded; fractional numbers are never integral so byte round trips are exact.
    mutating func json(depth: Int = 3) -> JSONValue {
        let kinds = depth > 0 ? 7 : 5
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3: return .double(Double(Int.random(in: -1_000_000...1_000_000, using: &random)) + 0.25)
        case 4: return .string(text())
        case 5: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in json(depth: depth - 1) })
        default: return .object(object(depth: depth - 1))
        }
    }

    mutating func object(depth: Int = 2) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &random) { object[key()] = json(depth: depth) }
        return object
    }

    mutating func alert() -> PushAlert {
        PushAlert(
            title: maybe { $0.text() }, subtitle: maybe { $0.text() }, body: maybe(0.8) { $0.text() },
            titleLocKey: maybe(0.2) { $0.text() }, titleLocArgs: maybe(0.2) { g in [g.text(), g.text()] },
            subtitleLocKey: maybe(0.2) { $0.text() }, subtitleLocArgs: maybe(0.2) { g in [g.text()] },
            locKey: maybe(0.2) { $0.text() }, locArgs: maybe(0.2) { g in [] + [g.text()] },
            launchImage: maybe(0.1) { $0.text() })
    }

    mutating func action() -> PushAction {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return .openApp
        case 1: return .deepLink(url: url())
        case 2: return .web(url: url(), inApp: chance(0.5))
        case 3: return .screen(name: "screen" + text(), parameters: object())
        default: return .coupon(code: "C" + text())
        }
    }

    mutating func button(index: Int) -> PushButton {
        let action: PushButton.Action
        switch Int.random(in: 0..<6, using: &random) {
        case 0: action = .openApp
        case 1: action = .deepLink(url: url())
        case 2: action = .web(url: url(), inApp: chance(0.5))
        case 3: action = .reply(placeholder: maybe { $0.text() }, submitTitle: maybe { $0.text() })
        case 4: action = .dismiss
        default: action = .custom
        }
        return PushButton(
            id: "b\(index)" + text(), title: text(), action: action, isDestructive: chance(0.3),
            requiresAuthentication: chance(0.3))
    }

    mutating func media() -> PushMedia {
        let source: PushMedia.Source =
            chance(0.8) ? .remote(url: url()) : .bundled(name: pick(["a.png", "b", "c.mp4"]))
        return PayloadNormalizer.media(
            source: source, type: maybe { g in g.pick(["image", "gif", "video", "audio", "jpg", "IMAGE"]) },
            ext: maybe(0.3) { g in g.pick(["png", "mov", "caf", "webp"]) },
            mime: maybe(0.3) { g in g.pick(["image/webp", "video/mp4"]) })
    }

    /// A valid native payload: every field the native format can carry, each present or absent at random.
    mutating func validPayload() -> PushPayload {
        var payload = PushPayload(dialect: .native)
        payload.messageID = maybe { $0.text() }
        payload.campaignID = maybe { $0.text() }
        payload.appID = maybe(0.3) { $0.text() }
        payload.sentAt = maybe {
            Date(millisecondsSince1970: Int64.random(in: 1_000_000_000_001...4_000_000_000_000, using: &$0.random))
        }
        payload.alert = maybe(0.7) { $0.alert() }
        payload.sound = maybe {
            g in
            g.chance(0.5)
                ? PushSound(name: g.text())
                : PushSound(name: g.text(), isCritical: g.chance(0.5), volume: g.maybe { g in g.pick([0, 0.5, 1]) })
        }
        payload.category = maybe { $0.text() }
        payload.threadID = maybe(0.3) { $0.text() }
        payload.interruptionLevel = maybe(0.3) { g in g.pick(InterruptionLevel.documented + [.init(rawValue: "x")]) }
        payload.relevanceScore = maybe(0.3) { g in g.pick([0, 0.25, 1, 0.333]) }
        payload.targetContentID = maybe(0.2) { $0.text() }
        payload.badge = pick([
            .none, .clear, .set(Int.random(in: 1...999, using: &random)),
            .increment(Int.random(in: 1...9, using: &random)),
        ])
        payload.contentAvailable = chance(0.3)
        payload.mutableContent = chance(0.5)
        payload.isInternal = chance(0.1)
        payload.defaultAction = maybe { $0.action() }
        payload.buttons = (0..<Int.random(in: 0...4, using: &random)).map { button(index: $0) }
        payload.media = maybe { $0.media() }
        payload.coupon = maybe(0.2) { $0.text() }
        payload.inbox = maybe(0.3) { g in
            InboxPolicy(
                expiresAt: g.maybe { g in
                    Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &g.random)))
                })
        }
        payload.data = chance(0.6) ? object() : [:]
        if chance(0.3) {
            var aps: [String: JSONValue] = [:]
            for key in ["stale-date", "content-state", "x-future", "filter-criteria"] where chance(0.4) {
                aps[key] = json(depth: 1)
            }
            var tidings: [String: JSONValue] = [:]
            for key in ["future", "template", "html"] where chance(0.4) { tidings[key] = json(depth: 1) }
            if !aps.isEmpty { payload.unrecognized["aps"] = .object(aps) }
            if !tidings.isEmpty { payload.unrecognized["tidings"] = .object(tidings) }
        }
        return payload
    }
}
