import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTestSupport

/// `tidings send --dry-run` against a real tidingsd API: the report for a person and as JSON, nothing sent.
@Suite struct SendDryRunCommandTests {
    @Test func printsTheReachSkipsRenderingsAndLintAndSendsNothing() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        try await backend.register("phone-2", context: ["consents": ["notifications": false]])
        let options = [
            "send", "--all", "--title", "Sale", "--body", "Half price", "--campaign", "spring", "--rate", "10",
            "--dry-run",
        ]
        let human = try await backend.tidingsConnected(options)
        #expect(human.status == 0, "\(human.standardError)")
        let text = human.standardOutput
        #expect(text.contains("Dry run     nothing was sent or stored"), "\(text)")
        #expect(text.contains("Audience    2 matched"), "\(text)")
        #expect(text.contains("Would send  1\n"), "\(text)")
        #expect(text.contains("Skipped     1: 1 consent\n"), "\(text)")
        #expect(text.contains("Duration    0.1 s at 10/s (the message's rate)"), "\(text)")
        #expect(text.contains("Rendering content: "), "\(text)")
        #expect(text.contains(", fits, for phone-1\n  title: Sale\n  body: Half price\n"), "\(text)")

        let json = try await backend.tidingsConnected(options + ["--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["dry_run"] == true)
        #expect(answer["reach"]?["would_send"] == 1)
        #expect(answer["reach"]?["skipped"]?["consent"] == 1)
        #expect(try backend.store.messages(appID: backend.appID, query: MessageListQuery(limit: 10)).isEmpty)

        let waiting = try await backend.tidingsConnected(options + ["--wait"])
        #expect(waiting.status != 0)
        #expect(waiting.standardError.contains("--dry-run sends nothing"), "\(waiting.standardError)")
        await backend.stop()
    }

    /// A server answering every request with `answer`: the previews come from the SDK on another branch.
    @Test func devicePreviewsAndLintFindingsAreShownWhenTheAnswerHasThem() async throws {
        let rendering: JSONValue = [
            "variant": "a", "language": "ja", "installation_id": "phone-1", "payload": ["aps": ["alert": "Hi"]],
            "payload_bytes": 5000, "limit_bytes": 4096, "fits": false,
            "lint": [
                [
                    "rule": "payload_too_large", "severity": "error", "message": "payload is 5000 bytes",
                    "path": .null,
                ]
            ],
            "device_previews": [
                [
                    "device": "iPhone, iOS 18, app in background", "shown": true, "title": "Hi", "body": "There",
                    "image": ["attached": false, "url": "https://cdn.example/a.png", "reason": "too large"],
                    "buttons": [["id": "buy", "title": "Buy"]],
                    "tap": ["kind": "deep_link", "destination": "shop://sale", "allowed": true],
                    "foreground_presentation": .null,
                ],
                ["device": "iPhone, iOS 15", "shown": false, "not_shown_reason": "background push: nothing is shown"],
            ],
        ]
        let answer: JSONValue = ["dry_run": true, "renderings": [rendering]]
        let body = Data(try answer.serialized())
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0),
            handler: { _ in HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body) },
            logger: .disabled())
        let endpoint = "http://127.0.0.1:\(try server.start())"
        defer { server.stopNow() }
        let result = try await TidingsExecutable.run(
            ["send", "--all", "--body", "Hi", "--dry-run", "--server", endpoint, "--key", "tdg_sk_x"],
            environment: ["HOME": FileManager.default.temporaryDirectory.path])
        #expect(result.status == 0, "\(result.standardError)")
        let text = result.standardOutput
        #expect(text.contains("Rendering a / ja: 5000 of 4096 bytes, TOO LARGE (APNs refuses it), for phone-1\n"))
        #expect(text.contains("  body: Hi\n"))
        #expect(text.contains("  error payload_too_large: payload is 5000 bytes\n"))
        #expect(
            text.contains(
                "  iPhone, iOS 18, app in background: shows \"Hi\" / \"There\", no image (too large), buttons Buy, "
                    + "tap: deep_link shop://sale\n"), "\(text)")
        #expect(text.contains("  iPhone, iOS 15: not shown (background push: nothing is shown)\n"))
    }
}
