import Foundation
import TidingsModel

/// `tidings send`: queues a message on tidingsd, and with `--wait` follows the fan-out to the end.
enum SendCommand {
    static let usage = """
        usage: tidings send TARGET CONTENT [options]

        target (exactly one):
          --installation ID        an installation (repeatable)
          --user ID                every installation of a user (repeatable)
          --tag-expression EXPR    users whose tags match, e.g. "(vip AND ios) OR NOT churned"
          --audience EXPR          installations an audience expression selects (docs/audiences.md), e.g.
                                   'tag:vip and language in (ja, en) and app_version >= 2.3.1'
          --all                    every installation of the app

        content:
          --title TEXT --subtitle TEXT --body TEXT
                                   the alert (a title or a body is required unless --background)
          --media URL              an https image, gif, video or audio (type from the extension)
          --button ID:TITLE[:URL]  up to 4 (repeatable); an https URL opens the web, any other scheme is a
                                   deep link, no URL just opens the app
          --link URL               a tap opens this web page
          --deeplink URL           a tap opens this deep link (shop://sale)
          --screen NAME            a tap opens this screen of the app
          --coupon CODE            a coupon code the app shows
          --badge N|+N|clear       set, add to, or clear the app icon's badge
          --sound NAME             a sound file of the app, or "default"
          --data KEY=VALUE         custom data for the app (repeatable; values are strings)
          --background             a silent push carrying only --data
          --ad                     an advertisement: only to installations that agreed to ads
          --transactional          a message one person waits for (a password reset): sent ahead of
                                   campaigns, not held by the app's rate ceiling or frequency cap

        delivery:
          --campaign ID            group messages for `tidings stats --campaign ID`
          --collapse-id ID         a newer message with the same id replaces this one (at most 64 bytes)
          --ttl SECONDS            how long APNs keeps trying (0: now or never; at most 30 days)
          --priority 10|5|1        APNs priority (background is always 5)
          --rate N                 send at most N pushes a second (the app's ceiling still applies)

        campaign (docs/campaigns.md):
          --at TIME                send at this time (RFC 3339 with offset, or unix seconds)
          --local-time TIME        send at this wall-clock time in each installation's zone (2026-12-24T09:00)
          --fallback-time-zone TZ  the zone of installations whose zone is unknown (Europe/Berlin)
          --if-past send_now       send at once rather than refuse (or skip zones) when the time has passed
          --locale-content FILE    content per language: {"ja": {...}, "en-GB": {...}}; the options above are
                                   the default unless FILE has "default"
          --variant ID:WEIGHT:FILE a split-test variant whose content is the JSON in FILE (repeatable)
          --control SHARE          hold back this share (0 to 0.5) as a control group that gets nothing

        output:
          --dry-run                send nothing: print the reach, the skips by reason, the variants, the
                                   duration and each rendering's size, lint and device previews
          --wait                   follow the fan-out (a progress bar on a terminal) and print the funnel
          --timeout SECONDS        give up waiting after this long (default 600; exit 1)
          --json                   the server's answer as JSON

        \(ServerConnection.usage)
        """

    /// How often `--wait` asks for the message's state.
    static let pollInterval: Duration = .milliseconds(250)

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments,
            options: MessageBodyBuilder.optionNames.union(ServerConnection.optionNames).union(["timeout"]),
            flags: MessageBodyBuilder.flagNames.union(["wait", "json", "dry-run"]))
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("send: unexpected argument '\(extra)'; run 'tidings send --help'")
        }
        let body = try MessageBodyBuilder.body(arguments)
        var timeout = 600.0
        if let text = arguments.option("timeout") {
            guard let seconds = Double(text), seconds > 0 else {
                throw CommandLineError.usage("send: --timeout '\(text)' must be a positive number of seconds")
            }
            timeout = seconds
        }
        let client = try ServerClient(arguments: arguments)
        let json = arguments.flag("json")
        if arguments.flag("dry-run") {
            guard !arguments.flag("wait") else {
                throw CommandLineError.usage("send: --dry-run sends nothing, so there is nothing to --wait for")
            }
            guard case .object(var object) = body else { return ExitCode.failure }
            object["dry_run"] = true
            let answer = try await client.json("POST", ["v1", "messages"], body: .object(object))
            if json { try Console.writeJSON(answer) } else { Console.write(DryRunText.render(answer)) }
            return ExitCode.success
        }
        let sent = try await client.sendMessage(body)
        guard arguments.flag("wait") else {
            if json { try Console.writeJSON(sent.json) } else { Console.write(describe(sent)) }
            return ExitCode.success
        }
        if !json { Console.write(describe(sent)) }
        let status = try await waitUntilFinished(sent, client: client, timeout: .seconds(timeout))
        if json {
            var answer = sent.json.objectValue ?? [:]
            answer["status"] = status
            try Console.writeJSON(.object(answer))
        } else {
            Console.write("\n" + FunnelText.header(status) + "\n")
            Console.write(FunnelText.render(funnel: status["funnel"] ?? [:], counts: status["counts"]))
            Console.write(BreakdownText.render(funnel: status["funnel"] ?? [:]))
        }
        guard status["state"]?.stringValue == "done" else {
            // Cancelled (by `DELETE /v1/messages/{id}`) before every target was handled.
            Console.error("send: message \(sent.messageID) was cancelled before the fan-out finished")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    /// The id and the targets, for a person.
    static func describe(_ sent: SentMessage) -> String {
        var text = TwoColumnText()
        text.row("Message", sent.messageID)
        var targets = "\(sent.targets)"
        if let queued = sent.queued {
            let reasons = sent.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            targets += " (\(queued) queued, \(sent.targets - queued) skipped"
            targets += reasons.isEmpty ? ")" : ": " + reasons.joined(separator: ", ") + ")"
        }
        text.row("Targets", targets)
        if let state = sent.json["state"]?.stringValue, state != "sending" {
            text.row("State", state + " (counts grow as the audience is resolved; follow with --wait)")
        }
        return text.render()
    }

    /// Polls `GET /v1/messages/{id}` until the message is `done` or `cancelled`, showing progress on stderr.
    /// - Throws: ``CommandLineError`` when `timeout` passes first, naming how far the fan-out got.
    static func waitUntilFinished(_ sent: SentMessage, client: ServerClient, timeout: Duration) async throws
        -> JSONValue
    {
        let progress = ProgressLine()
        defer { progress.finish() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let status = try await client.message(sent.messageID)
            let counts = status["counts"]
            func count(_ name: String) -> Int {
                if case .integer(let value)? = counts?[name] { return Int(value) }
                return 0
            }
            let handled = count("sent") + count("failed") + count("skipped") + count("cancelled")
            let state = status["state"]?.stringValue ?? "unknown"
            var detail = "\(state): sent \(count("sent")), failed \(count("failed")), skipped \(count("skipped"))"
            if count("cancelled") > 0 { detail += ", cancelled \(count("cancelled"))" }
            progress.update(done: handled, total: count("targets"), detail: detail)
            if state == "done" || state == "cancelled" { return status }
            guard clock.now < deadline else {
                throw CommandLineError.failure(
                    "send: message \(sent.messageID) is still \(state) after \(timeout) (\(handled) of "
                        + "\(count("targets")) handled); follow it with 'tidings stats \(sent.messageID)'")
            }
            try await Task.sleep(for: pollInterval)
        }
    }
}
