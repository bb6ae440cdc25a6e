import Foundation
import TidingsModel

/// The campaign options of `tidings send`: when (`--at`, `--local-time`, `--fallback-time-zone`,
/// `--if-past`), content per language (`--locale-content FILE`), variants (`--variant`, `--control`), the goal
/// (`--conversion`) and a winner picked by a test (`--winner-*`), mapped onto `POST /v1/messages`
/// (docs/campaigns.md). Times and shapes are the server's to judge; only what cannot be sent at all (an
/// unreadable file, a malformed option) is a usage error here.
enum CampaignOptions {
    /// Puts `content` (built from the other options) and the campaign options into `body`.
    static func apply(
        _ arguments: ArgumentList, content: [String: JSONValue], to body: inout [String: JSONValue],
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws {
        if let at = arguments.option("at") { body["send_at"] = Int64(at).map(JSONValue.integer) ?? .string(at) }
        if let time = arguments.option("local-time") { body["local_time"] = .string(time) }
        if let zone = arguments.option("fallback-time-zone") { body["fallback_time_zone"] = .string(zone) }
        if let ifPast = arguments.option("if-past") { body["if_past"] = .string(ifPast) }
        var localized: [String: JSONValue]?
        if let path = arguments.option("locale-content") {
            var languages = try object(path, option: "--locale-content", readFile: readFile)
            // The options' content is the default unless the file gives one.
            if languages["default"] == nil { languages["default"] = .object(content) }
            localized = languages
        }
        let variants = try arguments.values("variant").map { try variant($0, readFile: readFile) }
        if variants.isEmpty {
            body["content"] = localized.map(JSONValue.object) ?? .object(content)
        } else {
            if localized != nil || !content.isEmpty {
                throw CommandLineError.usage(
                    "send: with --variant each variant's file holds its content; drop --locale-content and the content options"
                )
            }
            body["variants"] = .array(variants)
        }
        if let control = arguments.option("control") {
            guard let share = Double(control) else {
                throw CommandLineError.usage("send: --control '\(control)' must be a share such as 0.1")
            }
            body["control"] = .double(share)
        }
        if let conversion = arguments.option("conversion") { body["conversion"] = try self.conversion(conversion) }
        if let winner = try winner(arguments) { body["winner"] = .object(winner) }
    }

    /// `EVENT:WITHIN` or `EVENT:WITHIN:FROM`: `purchase:24h`, `purchase:1h:open`.
    static func conversion(_ text: String) throws -> JSONValue {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), !parts[0].isEmpty, !parts[1].isEmpty else {
            throw CommandLineError.usage("send: --conversion '\(text)' must be EVENT:WITHIN or EVENT:WITHIN:FROM")
        }
        var goal: [String: JSONValue] = [
            "event": .string(parts[0]), "within": Int64(parts[1]).map(JSONValue.integer) ?? .string(parts[1]),
        ]
        if parts.count == 3 { goal["from"] = .string(parts[2]) }
        return .object(goal)
    }

    /// The `winner` of the `--winner-*` options; nil without them. The server judges the values.
    static func winner(_ arguments: ArgumentList) throws -> [String: JSONValue]? {
        var winner: [String: JSONValue] = [:]
        for (option, key) in [("winner-test-share", "test_share"), ("winner-confidence", "confidence")] {
            guard let text = arguments.option(option) else { continue }
            guard let value = Double(text) else {
                throw CommandLineError.usage("send: --\(option) '\(text)' must be a number such as 0.2")
            }
            winner[key] = .double(value)
        }
        if let after = arguments.option("winner-after") {
            winner["after"] = Int64(after).map(JSONValue.integer) ?? .string(after)
        }
        if let fallback = arguments.option("winner-if-inconclusive") { winner["if_inconclusive"] = .string(fallback) }
        guard !winner.isEmpty else { return nil }
        guard winner["test_share"] != nil else {
            throw CommandLineError.usage("send: the --winner options need --winner-test-share")
        }
        return winner
    }

    /// `ID:WEIGHT:FILE` or `ID:FILE`: a variant whose content (one, or per language) is the JSON in FILE.
    static func variant(_ text: String, readFile: (String) throws -> Data) throws -> JSONValue {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty else {
            throw CommandLineError.usage("send: --variant '\(text)' must be ID:WEIGHT:FILE or ID:FILE")
        }
        var weight: Int64 = 1
        var path = parts[1]
        if parts.count == 3 {
            guard let given = Int64(parts[1]), given > 0 else {
                throw CommandLineError.usage("send: --variant '\(text)': the weight must be a positive integer")
            }
            weight = given
            path = parts[2]
        }
        let content = try object(path, option: "--variant", readFile: readFile)
        return ["id": .string(parts[0]), "weight": .integer(weight), "content": .object(content)]
    }

    private static func object(_ path: String, option: String, readFile: (String) throws -> Data) throws
        -> [String: JSONValue]
    {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw CommandLineError.usage("send: \(option) cannot read \(path): \(error.localizedDescription)")
        }
        guard let object = (try? JSONValue.parse(data))?.objectValue else {
            throw CommandLineError.usage("send: \(option) \(path) must hold a JSON object")
        }
        return object
    }
}
