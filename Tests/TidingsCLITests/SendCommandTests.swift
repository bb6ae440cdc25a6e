import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsTestSupport

/// `tidings send` against a real tidingsd API over loopback, with fan-out to a recording provider.
@Suite struct SendCommandTests {
    @Test func everyContentOptionReachesTheStoredPayload() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        try await backend.register("phone-2")
        let result = try await backend.tidingsConnected([
            "send", "--installation", "phone-1", "--installation", "phone-2", "--title", "Sale", "--subtitle", "Today",
            "--body", "Half price", "--media", "https://cdn.example/sale.gif", "--button",
            "buy:Buy now:https://shop.example/sale",
            "--button", "later:Later", "--button", "item:See it:shop://item/7", "--deeplink", "shop://sale",
            "--coupon", "HALF", "--badge", "+2", "--sound", "default", "--data", "sku=42", "--data", "query=a=b",
            "--campaign", "spring", "--collapse-id", "sale-1", "--ttl", "3600", "--priority", "5", "--ad", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let answer = try JSONValue.parse(result.standardOutput)
        #expect(answer["targets"] == 2)
        #expect(answer["queued"] == 2)
        let id = try #require(answer["message_id"]?.stringValue)
        let (record, payload) = try #require(try backend.message(id))
        #expect(record.campaignID == "spring")
        #expect(record.collapseID == "sale-1")
        #expect(record.priority == 5)
        #expect(record.messageType == .ad)
        #expect(record.kind == .alert)
        #expect(record.expiresAt != nil)
        #expect(payload.alert?.title == "Sale")
        #expect(payload.alert?.subtitle == "Today")
        #expect(payload.alert?.body == "Half price")
        #expect(payload.media?.url == "https://cdn.example/sale.gif")
        #expect(payload.media?.kind == .gif)
        #expect(payload.buttons.map(\.id) == ["buy", "later", "item"])
        #expect(payload.buttons.map(\.title) == ["Buy now", "Later", "See it"])
        #expect(payload.buttons[0].action == .web(url: "https://shop.example/sale", inApp: false))
        #expect(payload.buttons[1].action == .openApp)
        #expect(payload.buttons[2].action == .deepLink(url: "shop://item/7"))
        #expect(payload.defaultAction == .deepLink(url: "shop://sale"))
        #expect(payload.coupon == "HALF")
        #expect(payload.badge == .increment(2))
        #expect(payload.sound?.name == "default")
        #expect(payload.data == ["sku": "42", "query": "a=b"])
        await backend.stop()
    }

    @Test func targetsUsersTagExpressionsAndAll() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("a-1", user: "alice")
        try await backend.register("a-2", user: "alice")
        try await backend.register("b-1", user: "bob")
        try await backend.register("c-1", user: "carol")
        try await backend.tag("alice", ["vip", "ios"])
        try await backend.tag("bob", ["vip", "churned"])

        func send(_ target: [String]) async throws -> (targets: JSONValue?, id: String?) {
            let result = try await backend.tidingsConnected(["send", "--body", "Hi", "--json"] + target)
            #expect(result.status == 0, "\(target): \(result.standardError)")
            let answer = try JSONValue.parse(result.standardOutput)
            return (answer["targets"], answer["message_id"]?.stringValue)
        }
        #expect(try await send(["--user", "alice"]).targets == 2)
        #expect(try await send(["--user", "alice", "--user", "bob"]).targets == 3)
        #expect(try await send(["--tag-expression", "vip AND NOT churned"]).targets == 2)
        #expect(try await send(["--tag-expression", "vip"]).targets == 3)
        let all = try await send(["--all"])
        #expect(all.targets == 4)
        let allID = try #require(all.id)
        let (record, payload) = try #require(try backend.message(allID))
        #expect(payload.alert?.body == "Hi")
        #expect(record.messageType == .notification)
        #expect(payload.category == "tidings.default")

        let human = try await backend.tidingsConnected(["send", "--body", "Hi", "--user", "bob"])
        #expect(human.status == 0)
        #expect(human.standardOutput.hasPrefix("Message  msg_"))
        #expect(human.standardOutput.contains("Targets  1 (1 queued, 0 skipped)"))
        await backend.stop()
    }

    @Test func backgroundSendsOnlyData() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let result = try await backend.tidingsConnected([
            "send", "--all", "--background", "--data", "refresh=inbox", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let id = try #require(try JSONValue.parse(result.standardOutput)["message_id"]?.stringValue)
        let (record, payload) = try #require(try backend.message(id))
        #expect(record.kind == .background)
        #expect(payload.contentAvailable)
        #expect(payload.alert == nil)
        #expect(payload.data == ["refresh": "inbox"])

        let refused = try await backend.tidingsConnected(["send", "--all", "--background", "--title", "Hi"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("--title is not allowed"))
        await backend.stop()
    }

    @Test func waitFollowsTheFanoutToDoneAndPrintsTheFunnel() async throws {
        let backend = try APIBackend()
        var tokens: [String] = []
        for index in 0..<5 { tokens.append(try await backend.register("phone-\(index)", user: "u\(index)")) }
        let result = try await backend.tidingsConnected(["send", "--all", "--title", "Hello", "--wait"])
        #expect(result.status == 0, "\(result.standardError)")
        // Not a terminal: plain progress lines, the last one complete.
        let progress = result.standardError.split(separator: "\n")
        #expect(progress.last == "progress: 100% 5/5 done: sent 5, failed 0, skipped 0")
        #expect(!result.standardError.contains("\r"))
        #expect(result.standardOutput.contains("State     done"))
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("STAGE") && $0.hasSuffix("RATE") })
        #expect(lines.contains("sent                 5"))
        #expect(lines.contains("delivered            0              0"))
        #expect(lines.contains("opened               0              0     -"))
        #expect(Set(backend.provider.pushes.map(\.token)) == Set(tokens))

        let json = try await backend.tidingsConnected(["send", "--user", "u1", "--body", "Again", "--wait", "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["status"]?["state"] == "done")
        #expect(answer["status"]?["counts"]?["sent"] == 1)
        #expect(answer["status"]?["funnel"]?["delivered"] == 0)
        await backend.stop()
    }

    @Test func waitDrawsABarOnATerminal() async throws {
        let backend = try APIBackend()
        for index in 0..<3 { try await backend.register("phone-\(index)") }
        let arguments = [
            "send", "--all", "--title", "Hi", "--wait", "--server", backend.endpoint, "--key", backend.serverKey,
        ]
        let environment = backend.environment()
        let result = try await offThePool { try TerminalCapture.run(arguments, environment: environment) }
        #expect(result.status == 0, "\(result.terminal)")
        // Redrawn in place (carriage return, erase line), ending on a full bar and a fresh line.
        #expect(
            result.terminal.contains("\r\u{1B}[2K[####################] 100%  3/3  done: sent 3, failed 0, skipped 0"))
        #expect(!result.terminal.contains("progress: "))
        // The terminal turns the final newline into CR LF.
        #expect(result.terminal.hasSuffix("\r\n"))
        #expect(result.standardOutput.contains("State     done"))
        await backend.stop()
    }

    @Test func skippedTargetsAreCountedByReason() async throws {
        let backend = try APIBackend()
        try await backend.register("phone-1")
        let result = try await backend.tidingsConnected([
            "send", "--installation", "phone-1", "--installation", "ghost", "--body", "Hi", "--wait",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Targets  2 (1 queued, 1 skipped: 1 unknown_installation)"))
        // The funnel's counts break skipped targets down by reason too.
        #expect(lines.contains("skipped                               1"))
        #expect(lines.contains("  skipped: unknown_installation       1"))
        #expect(lines.contains("sent                                  1"))
        await backend.stop()
    }

    @Test(.timeLimit(.minutes(1))) func waitEndsInAnErrorWhenTheMessageIsCancelled() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let process = Process()
        process.executableURL = TidingsExecutable.url
        process.arguments = [
            "send", "--all", "--body", "Hi", "--wait", "--server", backend.endpoint, "--key", backend.serverKey,
        ]
        process.environment = backend.environment()
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // The id is printed before the waiting starts; nothing sends, so the message waits to be cancelled.
        let firstLine = await offThePool {
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data += chunk
            }
            return String(decoding: data, as: UTF8.self)
        }
        let lastWord: Substring? = firstLine.split(separator: "\n").first?.split(separator: " ").last
        let id = String(try #require(lastWord))
        #expect(id.hasPrefix("msg_"))
        let cancelled = try await backend.call("DELETE", "/v1/messages/\(id)", key: backend.serverKey)
        #expect(cancelled.status == 200)
        let standardError = await offThePool {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(process.terminationStatus == 1)
        // The last progress line counts the cancelled targets as handled.
        let targets = try #require(cancelled.json["counts"]?["targets"]?.integerValue)
        #expect(
            standardError.contains(
                "\(targets)/\(targets) cancelled: sent 0, failed 0, skipped 0, cancelled \(targets)"),
            "\(standardError)")
        #expect(standardError.hasSuffix("tidings: send: message \(id) was cancelled before the fan-out finished\n"))
        await backend.stop()
    }

    @Test func waitGivesUpAfterTheTimeout() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let result = try await backend.tidingsConnected(["send", "--all", "--body", "Hi", "--wait", "--timeout", "0.5"])
        #expect(result.status == 1)
        // Its audience is resolved within the request, so it is sending (with no worker to send it).
        #expect(result.standardError.contains("is still sending after"))
        #expect(result.standardError.contains("0 of 1 handled"))
        await backend.stop()
    }

    @Test(arguments: [
        (["--button", "buy"], "--button 'buy' must be ID:TITLE or ID:TITLE:URL"),
        (["--button", ":Buy"], "--button ':Buy' must be ID:TITLE"),
        (["--button", "buy:Buy:sale"], "'sale' must be an absolute URL"),
        (["--badge", "many"], "--badge 'many' must be N (set), +N (add) or clear"),
        (["--badge", "+"], "--badge '+' must be"),
        (["--badge", "-1"], "--badge '-1' must be"),
        (["--data", "novalue"], "--data 'novalue' must be KEY=VALUE"),
        (["--data", "=x"], "--data '=x' must be KEY=VALUE"),
        (["--data", "a=1", "--data", "a=2"], "--data a is given twice"),
        (["--ttl", "soon"], "--ttl 'soon' must be whole seconds"),
        (["--priority", "7"], "--priority '7' must be 10, 5 or 1"),
        (["--link", "https://a.example", "--deeplink", "shop://b"], "give one of --link, --deeplink, --screen"),
        (["--user", "u", "--all"], "give exactly one target"),
        (["--title"], "--title needs a value"),
    ])
    func malformedOptionsAreUsageErrors(options: [String], message: String) async throws {
        // No server is needed: the command line is refused before any request.
        var arguments = ["send", "--body", "Hi", "--server", "http://127.0.0.1:9", "--key", "tdg_srv_x"]
        if !options.contains("--user") && !options.contains("--all") { arguments += ["--installation", "p1"] }
        let result = try await TidingsExecutable.run(arguments + options, environment: ["HOME": "/nonexistent"])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aMissingTargetOrAlertTextIsAUsageError() async throws {
        let environment = ["HOME": "/nonexistent", "TIDINGS_SERVER_KEY": "tdg_srv_x"]
        let noTarget = try await TidingsExecutable.run(["send", "--title", "Hi"], environment: environment)
        #expect(noTarget.status == 2)
        #expect(noTarget.standardError.contains("none was given"))
        let noText = try await TidingsExecutable.run(["send", "--all", "--sound", "default"], environment: environment)
        #expect(noText.status == 2)
        #expect(noText.standardError.contains("an alert needs --title or --body"))
    }

    @Test func helpPrintsTheOptions() async throws {
        let result = try await TidingsExecutable.run(["send", "--help"], environment: ["HOME": "/nonexistent"])
        #expect(result.status == 0)
        for option in [
            "--tag-expression", "--button ID:TITLE[:URL]", "--badge N|+N|clear", "--wait", "TIDINGS_SERVER_KEY",
        ] {
            #expect(result.standardOutput.contains(option))
        }
    }
}
