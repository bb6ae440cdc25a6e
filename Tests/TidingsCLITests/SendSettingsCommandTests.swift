import Foundation
import Testing
import TidingsModel
import TidingsStore

/// `tidings apps send-settings` and `tidings send --rate/--transactional` against a real tidingsd on loopback.
@Suite struct SendSettingsCommandTests {
    @Test func sendSettingsShowChangeAndReset() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let shown = try await backend.tidingsAdmin(["apps", "send-settings", "CLI"], adminKey: admin)
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("Frequency cap   none"), "\(shown.standardOutput)")
        let changed = try await backend.tidingsAdmin(
            [
                "apps", "send-settings", "CLI", "--rate", "200", "--frequency-cap", "3/86400", "--default-ttl", "600",
                "--json",
            ], adminKey: admin)
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(try JSONValue.parse(changed.standardOutput)["frequency_cap"] == ["count": 3, "window_seconds": 86_400])
        #expect(
            try backend.store.sendSettings(appID: backend.appID)
                == AppSendSettings(
                    ratePerSecond: 200, frequencyCap: FrequencyCap(count: 3, windowSeconds: 86_400),
                    defaultTTLSeconds: 600))
        let human = try await backend.tidingsAdmin(["apps", "send-settings", "CLI"], adminKey: admin)
        #expect(human.standardOutput.contains("3 marketing pushes per 86400 s"), "\(human.standardOutput)")
        let reset = try await backend.tidingsAdmin(
            ["apps", "send-settings", "CLI", "--rate", "default", "--frequency-cap", "none"], adminKey: admin)
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(try backend.store.sendSettings(appID: backend.appID) == AppSendSettings(defaultTTLSeconds: 600))

        for (options, message) in [
            (["--rate", "0"], "--rate '0' must be a whole number"),
            (["--frequency-cap", "3"], "--frequency-cap '3' must be N/SECONDS"),
            (["--default-ttl", "soon"], "--default-ttl 'soon' must be"),
        ] {
            let refused = try await backend.tidingsAdmin(["apps", "send-settings", "CLI"] + options, adminKey: admin)
            #expect(refused.status == 2, "\(options)")
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
        // Past the server's range: its refusal, exit 1, nothing changed.
        let tooShort = try await backend.tidingsAdmin(
            ["apps", "send-settings", "CLI", "--frequency-cap", "3/10"], adminKey: admin)
        #expect(tooShort.status == 1)
        #expect(tooShort.standardError.contains("answered 400"))
        #expect(try backend.store.sendSettings(appID: backend.appID) == AppSendSettings(defaultTTLSeconds: 600))
        await backend.stop()
    }

    @Test func sendTakesARateAndTheTransactionalType() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let result = try await backend.tidingsConnected([
            "send", "--installation", "phone-1", "--title", "Reset", "--rate", "25", "--transactional", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let id = try #require(try JSONValue.parse(result.standardOutput)["message_id"]?.stringValue)
        let (record, _) = try #require(try backend.message(id))
        #expect(record.ratePerSecond == 25)
        #expect(record.messageType == .transactional)

        for (options, message) in [
            (["--rate", "0"], "--rate '0' must be a whole number"),
            (["--rate", "fast"], "--rate 'fast' must be"),
            (["--ad", "--transactional"], "--ad or --transactional, not both"),
        ] {
            let arguments =
                [
                    "send", "--body", "Hi", "--installation", "p1", "--server", "http://127.0.0.1:9", "--key",
                    "tdg_srv_x",
                ]
            let refused = try await TidingsExecutable.run(arguments + options, environment: ["HOME": "/nonexistent"])
            #expect(refused.status == 2, "\(options)")
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
        await backend.stop()
    }
}
