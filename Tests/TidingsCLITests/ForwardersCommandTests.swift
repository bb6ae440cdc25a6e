import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

/// `tidings forwarders ...` over the administration API of a real tidingsd on loopback.
@Suite struct ForwardersCommandTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-forwarders") }

    @Test func addShowsTheSigningSecretOnceAndTheOtherCommandsManageTheForwarder() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()

        let added = try await backend.tidingsAdmin(
            [
                "forwarders", "add", "--app", "CLI", "--kind", "webhook", "--url", "https://hooks.example.com/t",
                "--event-types", "open,dismiss", "--drop-fields", "user_id",
            ], adminKey: admin)
        #expect(added.status == 0, "\(added.standardError)")
        let lines = added.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Added fwd_") == true)
        let secret = try #require(lines.last)
        #expect(secret.hasPrefix("whsec_"))
        let secondWord: Substring? = lines.first?.split(separator: " ").dropFirst().first
        let id = String(try #require(secondWord))

        let listed = try await backend.tidingsAdmin(["forwarders", "list", "--app", "CLI", "--json"], adminKey: admin)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(!listed.standardOutput.contains(secret))
        let forwarder = try #require(try JSONValue.parse(listed.standardOutput)["forwarders"]?.arrayValue?.first)
        #expect(forwarder["settings"]?["secret_set"] == true)
        #expect(forwarder["filter"]?["event_types"] == ["open", "dismiss"])

        let paused = try await backend.tidingsAdmin(["forwarders", "pause", "--app", "CLI", id], adminKey: admin)
        #expect(paused.status == 0 && paused.standardOutput.contains("paused"), "\(paused.standardError)")
        let backfill = try await backend.tidingsAdmin(
            [
                "forwarders", "backfill", "--app", "CLI", id, "--since", "2026-11-01T00:00:00Z", "--until",
                "2026-11-02T00:00:00Z",
            ],
            adminKey: admin)
        #expect(backfill.status == 0, "\(backfill.standardError)")
        let letters = try await backend.tidingsAdmin(
            ["forwarders", "dead-letters", "list", "--app", "CLI", id], adminKey: admin)
        #expect(letters.standardOutput == "No dead letters.\n")
        let removed = try await backend.tidingsAdmin(["forwarders", "remove", "--app", "CLI", id], adminKey: admin)
        #expect(removed.status == 0)
        let gone = try await backend.tidingsAdmin(["forwarders", "pause", "--app", "CLI", id], adminKey: admin)
        #expect(gone.status != 0 && gone.standardError.contains("no forwarder"))
        await backend.stop()
    }

    @Test func badSettingsAreRefusedNamingTheField() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let insecure = try await backend.tidingsAdmin(
            ["forwarders", "add", "--app", "CLI", "--kind", "webhook", "--url", "http://hooks.example.com/t"],
            adminKey: admin)
        #expect(insecure.status != 0 && insecure.standardError.contains("https://"))
        let noKey = try await backend.tidings(
            [
                "forwarders", "add", "--app", "CLI", "--kind", "treasure_data", "--region", "ap01", "--database",
                "mobile",
                "--table", "push_events", "--server", backend.endpoint, "--admin-key", admin,
            ], environment: ["TIDINGS_TD_WRITE_KEY": ""])
        #expect(noKey.status != 0 && noKey.standardError.contains("write_key"))
        await backend.stop()
    }

    @Test func verifySignatureAcceptsWhatTheServerSignsAndRefusesTampering() async throws {
        let body = try scratch.file(#"{"batch_id":"b","events":[]}"#).path
        let secretFile = try scratch.file("whsec_cli_test_secret_012345678\n").path
        let now = Int64(Date().timeIntervalSince1970)
        // The reference signature: HMAC-SHA256 over "<t>.<body>" under the secret, computed by openssl.
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/bin/sh")
        openssl.arguments = [
            "-c",
            "printf '%s' \"\(now).$(cat \(body))\" | openssl dgst -sha256 -hmac whsec_cli_test_secret_012345678 -r | cut -d' ' -f1",
        ]
        let pipe = Pipe()
        openssl.standardOutput = pipe
        try openssl.run()
        openssl.waitUntilExit()
        let signature = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signature.count == 64)

        let valid = try await TidingsExecutable.run(
            [
                "forwarders", "verify-signature", "--header", "t=\(now),v1=\(signature)", "--body-file", body,
                "--secret-file", secretFile,
            ])
        #expect(valid.status == 0, "\(valid.standardError)")
        #expect(valid.standardOutput == "The signature is valid.\n")
        let tampered = try await TidingsExecutable.run(
            [
                "forwarders", "verify-signature", "--header", "t=\(now + 1),v1=\(signature)", "--body-file", body,
                "--secret-file", secretFile,
            ])
        #expect(tampered.status != 0 && tampered.standardError.contains("does not match"))
        let stale = try await TidingsExecutable.run(
            [
                "forwarders", "verify-signature", "--header", "t=\(now - 1000),v1=\(signature)", "--body-file", body,
                "--secret-file", secretFile,
            ])
        #expect(stale.status != 0 && stale.standardError.contains("at most 300 s"))
    }
}
