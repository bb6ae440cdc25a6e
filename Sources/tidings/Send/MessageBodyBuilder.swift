import Foundation
import TidingsModel

/// Maps the options of `tidings send` onto the body of `POST /v1/messages` (docs/openapi.yaml, `MessageRequest`).
///
/// ```
/// --user u1 --title Sale --button buy:Buy:https://shop.example/sale --badge +1 --data sku=42
/// → {"target": {"user_ids": ["u1"]},
///    "content": {"title": "Sale", "buttons": [{"id": "buy", "title": "Buy", "action": {"type": "web", ...}}],
///                "badge": {"op": "increment", "value": 1}, "data": {"sku": "42"}}}
/// ```
///
/// Shapes the server cannot tell apart from a typo (a `--button` without a title, a `--badge` that is not a
/// number) are usage errors here; rules the server owns (https media, payload size, tag syntax) are left to it,
/// so the CLI never disagrees with the API.
enum MessageBodyBuilder {
    /// The options that take a value; `button`, `data`, `installation` and `user` may repeat.
    static let optionNames: Set<String> = [
        "installation", "user", "tag-expression", "audience", "title", "subtitle", "body", "media", "button", "link",
        "deeplink",
        "screen", "coupon", "badge", "sound", "data", "campaign", "collapse-id", "ttl", "priority", "at", "local-time",
        "fallback-time-zone", "if-past", "locale-content", "variant", "control", "rate", "conversion",
        "winner-test-share", "winner-after", "winner-confidence", "winner-if-inconclusive",
    ]
    static let flagNames: Set<String> = ["all", "background", "ad", "transactional"]

    /// The request body for `arguments`.
    /// - Throws: ``CommandLineError`` (usage) naming the option that is missing, repeated or malformed.
    static func body(_ arguments: ArgumentList) throws -> JSONValue {
        var body: [String: JSONValue] = ["target": try target(arguments)]
        var content: [String: JSONValue] = [:]
        let alertOptions = [
            "title", "subtitle", "body", "media", "button", "link", "deeplink", "screen", "coupon", "badge", "sound",
        ]
        if arguments.flag("background") {
            if let shown = alertOptions.first(where: { !arguments.values($0).isEmpty }) {
                throw CommandLineError.usage(
                    "send: a --background message shows nothing, so --\(shown) is not allowed; use --data")
            }
            body["kind"] = "background"
        } else {
            for name in ["title", "subtitle", "body", "sound", "coupon"] {
                if let value = arguments.option(name) { content[name] = .string(value) }
            }
            guard
                content["title"] != nil || content["body"] != nil || !arguments.values("variant").isEmpty
                    || arguments.option("locale-content") != nil
            else {
                throw CommandLineError.usage("send: an alert needs --title or --body (or send --background)")
            }
            if let media = arguments.option("media") { content["media"] = mediaJSON(media) }
            let buttons = try arguments.values("button").map(button)
            if !buttons.isEmpty { content["buttons"] = .array(buttons) }
            if let action = try defaultAction(arguments) { content["default_action"] = action }
            if let badge = arguments.option("badge") { content["badge"] = try badgeJSON(badge) }
        }
        let data = try dataJSON(arguments.values("data"))
        if !data.isEmpty { content["data"] = .object(data) }
        try CampaignOptions.apply(arguments, content: content, to: &body)
        if arguments.flag("ad") && arguments.flag("transactional") {
            throw CommandLineError.usage("send: a message is --ad or --transactional, not both")
        }
        if arguments.flag("ad") { body["message_type"] = "ad" }
        if arguments.flag("transactional") { body["type"] = "transactional" }
        if let rate = arguments.option("rate") {
            guard let value = Int64(rate), value >= 1 else {
                throw CommandLineError.usage(
                    "send: --rate '\(rate)' must be a whole number of pushes a second, 1 or more")
            }
            body["rate_per_second"] = .integer(value)
        }
        if let campaign = arguments.option("campaign") { body["campaign_id"] = .string(campaign) }
        if let collapseID = arguments.option("collapse-id") { body["collapse_id"] = .string(collapseID) }
        if let ttl = arguments.option("ttl") {
            guard let seconds = Int64(ttl), seconds >= 0 else {
                throw CommandLineError.usage("send: --ttl '\(ttl)' must be whole seconds, 0 or more")
            }
            body["ttl"] = .integer(seconds)
        }
        if let priority = arguments.option("priority") {
            guard let value = Int64(priority), [10, 5, 1].contains(value) else {
                throw CommandLineError.usage("send: --priority '\(priority)' must be 10, 5 or 1")
            }
            body["priority"] = .integer(value)
        }
        return .object(body)
    }

    /// Exactly one of `--installation` (repeatable), `--user` (repeatable), `--tag-expression`, `--audience`,
    /// `--all`. An audience expression is parsed here first, so a mistake is shown with a caret under it.
    /// - Parameter command: the command named in usage errors.
    static func target(_ arguments: ArgumentList, command: String = "send") throws -> JSONValue {
        var targets: [(name: String, value: JSONValue)] = []
        let installations = arguments.values("installation")
        if !installations.isEmpty {
            targets.append(("--installation", ["installation_ids": .array(installations.map(JSONValue.string))]))
        }
        let users = arguments.values("user")
        if !users.isEmpty { targets.append(("--user", ["user_ids": .array(users.map(JSONValue.string))])) }
        let expressions = arguments.values("tag-expression")
        if expressions.count > 1 {
            throw CommandLineError.usage(
                "\(command): give one --tag-expression; combine tags with AND, OR, NOT inside it")
        }
        if let expression = expressions.first { targets.append(("--tag-expression", ["tags": .string(expression)])) }
        let audiences = arguments.values("audience")
        if audiences.count > 1 {
            throw CommandLineError.usage("send: give one --audience; combine conditions with and, or, not inside it")
        }
        if let audience = audiences.first {
            try AudienceCommand.validate(audience, command: "send: --audience")
            targets.append(("--audience", ["audience": .string(audience)]))
        }
        if arguments.flag("all") { targets.append(("--all", ["all": true])) }
        guard targets.count == 1 else {
            let given =
                targets.isEmpty ? "none was given" : targets.map(\.name).joined(separator: " and ") + " were given"
            throw CommandLineError.usage(
                "\(command): give exactly one target: --installation ID, --user ID, --tag-expression EXPR, "
                    + "--audience EXPR or --all; \(given)")
        }
        return targets[0].value
    }

    /// `ID:TITLE` opens the app; `ID:TITLE:https://…` opens the web; `ID:TITLE:scheme:…` is a deep link.
    static func button(_ text: String) throws -> JSONValue {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw CommandLineError.usage("send: --button '\(text)' must be ID:TITLE or ID:TITLE:URL")
        }
        var button: [String: JSONValue] = ["id": .string(parts[0]), "title": .string(parts[1])]
        if parts.count == 3 {
            guard let action = linkAction(parts[2]) else {
                throw CommandLineError.usage(
                    "send: --button '\(text)': '\(parts[2])' must be an absolute URL "
                        + "(https://… opens the web, app-scheme://… is a deep link)")
            }
            button["action"] = action
        }
        return .object(button)
    }

    /// A web action for http(s) URLs, a deep link for any other scheme, nil for text without a scheme.
    static func linkAction(_ text: String) -> JSONValue? {
        guard let scheme = URLComponents(string: text)?.scheme?.lowercased(), !scheme.isEmpty,
            text.count > scheme.count + 1
        else { return nil }
        let type = scheme == "http" || scheme == "https" ? "web" : "deeplink"
        return ["type": .string(type), "url": .string(text)]
    }

    /// `--link` (web), `--deeplink` or `--screen`: what a tap on the notification does; at most one.
    static func defaultAction(_ arguments: ArgumentList) throws -> JSONValue? {
        var actions: [(name: String, value: JSONValue)] = []
        if let link = arguments.option("link") {
            guard linkAction(link) != nil else {
                throw CommandLineError.usage("send: --link '\(link)' must be an absolute URL")
            }
            actions.append(("--link", ["type": "web", "url": .string(link)]))
        }
        if let deeplink = arguments.option("deeplink") {
            guard linkAction(deeplink) != nil else {
                throw CommandLineError.usage(
                    "send: --deeplink '\(deeplink)' must be an absolute URL such as shop://sale")
            }
            actions.append(("--deeplink", ["type": "deeplink", "url": .string(deeplink)]))
        }
        if let screen = arguments.option("screen") {
            guard !screen.isEmpty else { throw CommandLineError.usage("send: --screen needs a screen name") }
            actions.append(("--screen", ["type": "screen", "screen": .string(screen)]))
        }
        guard actions.count <= 1 else {
            throw CommandLineError.usage(
                "send: a tap does one thing; give one of --link, --deeplink, --screen, not "
                    + actions.map(\.name).joined(separator: " and "))
        }
        return actions.first?.value
    }

    /// `N` sets the badge, `+N` adds to it, `clear` clears it.
    static func badgeJSON(_ text: String) throws -> JSONValue {
        if text == "clear" { return ["op": "clear"] }
        let increment = text.hasPrefix("+")
        let digits = increment ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let value = Int64(digits)
        else {
            throw CommandLineError.usage("send: --badge '\(text)' must be N (set), +N (add) or clear")
        }
        return increment ? ["op": "increment", "value": .integer(value)] : ["op": "set", "value": .integer(value)]
    }

    /// `KEY=VALUE` pairs as string members; a key may appear once.
    static func dataJSON(_ pairs: [String]) throws -> [String: JSONValue] {
        var data: [String: JSONValue] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CommandLineError.usage("send: --data '\(pair)' must be KEY=VALUE")
            }
            let key = String(pair[..<equals])
            guard data[key] == nil else { throw CommandLineError.usage("send: --data \(key) is given twice") }
            data[key] = .string(String(pair[pair.index(after: equals)...]))
        }
        return data
    }

    /// `{"url": …}`, with the type guessed from the file extension (image unless it says gif, video or audio).
    static func mediaJSON(_ url: String) -> JSONValue {
        let path = URLComponents(string: url)?.path ?? url
        let type =
            switch (path as NSString).pathExtension.lowercased() {
            case "gif": "gif"
            case "mp4", "m4v", "mov": "video"
            case "mp3", "m4a", "aac", "wav", "aif", "aiff", "caf": "audio"
            default: "image"
            }
        return ["url": .string(url), "type": .string(type)]
    }
}
