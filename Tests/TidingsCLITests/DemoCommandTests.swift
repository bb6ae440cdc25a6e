import Foundation
import Testing
import TidingsModel

/// `tidings demo` and `tidings device simulate`, run as a user runs them.
@Suite struct DemoCommandTests {
    @Test func theDemoPrintsAFunnelThatMatchesWhatTheDevicesDid() async throws {
        let result = try await TidingsExecutable.run(["demo", "--devices", "4", "--seed", "3", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONValue.parse(result.standardOutput)
        #expect(report["matches"] == true)
        #expect(report["devices"] == 4)
        // Two variants and a 10% control group: the control's devices get nothing and are counted.
        let control = report["counts"]?["skipped_by_reason"]?["control"]?.integerValue ?? 0
        #expect(report["funnel"]?["sent"] == .integer(4 - control))
        #expect(report["funnel"]?["delivered"] == .integer(4 - control))
        #expect(report["devices_did"]?["media_attached"] == .integer(4 - control))
        let variants = report["funnel"]?["variants"]?.arrayValue ?? []
        #expect(variants.compactMap { $0["variant"]?.stringValue } == ["picks", "new-arrivals", "control"])
        // The funnels per variant add up to what the devices did.
        #expect(variants.reduce(0) { $0 + ($1["delivered"]?.integerValue ?? 0) } == 4 - control)
        #expect(variants[2]["targets"] == .integer(control))
        #expect(report["funnel"]?["opened"] == report["devices_did"]?["opened"])
        #expect(report["failures"] == [])
        // The split test's goal: every purchase the apps tracked after the push is one conversion in tidingsd.
        #expect(report["funnel"]?["conversion"]?["converted"] == report["devices_did"]?["purchases"])
        #expect(report["funnel"]?["conversion"]?["event"] == "purchase")
        // Progress goes to standard error, so standard output stays one JSON document.
        #expect(result.standardError.contains("[7/7]"))
        // The Live Activity went start → update → end on every device, and the SDKs removed its tokens.
        let steps = report["live_activity"]?["steps"]?.arrayValue ?? []
        #expect(steps.compactMap { $0["event"]?.stringValue } == ["start", "update", "end"])
        #expect(steps.allSatisfy { $0["devices"] == 4 && $0["sent"] == 4 })
        #expect(report["live_activity"]?["tokens_left"] == 0)
        // Of 4 devices, 3 add to cart: one buys at once, two after the reminder (one in the app, one through the
        // backend); every step equals what they did.
        let journey = try #require(report["journey"])
        #expect(journey["succeeded"] == true, "\(journey)")
        #expect(journey["mismatches"] == [])
        #expect(journey["entered"] == 3)
        #expect(journey["exited"] == ["event:purchase": 3])
        let remind = journey["steps"]?.arrayValue?.first { $0["id"] == "remind" }
        #expect(remind?["sent"] == 2 && remind?["converted"] == 2)
    }

    @Test func theDemoFleetSpeaksSeveralLanguagesAcrossTheExtremeTimeZones() async throws {
        let result = try await TidingsExecutable.run(["demo", "--devices", "40", "--seed", "1", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONValue.parse(result.standardOutput)
        #expect(report["matches"] == true)
        // The localized campaign's content languages (English, Japanese and the default for everyone else) each
        // have their row, and together they hold every send.
        let languages = report["funnel"]?["languages"]?.arrayValue ?? []
        #expect(Set(languages.compactMap { $0["language"]?.stringValue }) == ["en", "ja", "default"])
        #expect(languages.reduce(0) { $0 + ($1["sent"]?.integerValue ?? 0) } == report["funnel"]?["sent"]?.integerValue)
        let audience = report["audience"]?.stringValue ?? ""
        #expect(audience.contains("ja-JP") && audience.contains("en-US"), "\(audience)")
        #expect(audience.contains("UTC−11 (Pacific/Pago_Pago) to UTC+14 (Pacific/Kiritimati)"), "\(audience)")

        // The local-time message is due once per distinct offset, earliest (UTC+14) first, each zone's expiry an
        // hour after its own due time; every device waits in one zone until the cancel leaves none waiting.
        let localTime = try #require(report["local_time"])
        #expect(localTime["succeeded"] == true)
        let zones = localTime["zones"]?.arrayValue ?? []
        #expect(zones.first?["utc_offset"] == "+14:00", "\(zones)")
        #expect(zones.contains { $0["utc_offset"] == "+05:45" } && zones.contains { $0["utc_offset"] == "-11:00" })
        let dues = zones.compactMap { $0["due_at"]?.integerValue }
        #expect(dues == dues.sorted() && Set(dues).count == dues.count)
        #expect(zones.reduce(0) { $0 + ($1["waiting"]?.integerValue ?? 0) } == 40)
        #expect(localTime["waiting_before_cancel"] == 40)
        #expect(localTime["counts_after_cancel"]?["sent"] == 0)
        #expect(localTime["counts_after_cancel"]?["cancelled"] == 40)
    }

    @Test func theDemoExplainsItsFunnelToPeople() async throws {
        let result = try await TidingsExecutable.run(["demo", "--devices", "2"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("The server's funnel equals what the 2 devices did."))
        #expect(result.standardOutput.contains("delivered"))
        #expect(result.standardOutput.contains("Try next:"))
        #expect(result.standardOutput.contains("By variant and language"))
        #expect(result.standardOutput.contains("end     2 pushes → 2 devices show \"delivered\""))
        #expect(result.standardOutput.contains("every step equals what the devices did"))
    }

    @Test(arguments: [
        (["demo", "--devices", "0"], "--devices must be a whole number from 1 to 20000"),
        (["demo", "--timeout", "-1"], "--timeout must be a positive number"),
        (["demo", "extra"], "unexpected argument 'extra'"),
        (["device", "simulate", "--app-key", "k", "--topic", "t"], "--count N is required"),
        (
            ["device", "simulate", "--count", "0", "--app-key", "k", "--topic", "t"],
            "--count must be a whole number from 1 to 20000"
        ),
        (["device", "simulate", "--count", "2", "--topic", "t", "--app-key", "k", "--open", "2"], "between 0 and 1"),
        (["device", "simulate", "--count", "2", "--app-key", "k"], "--topic BUNDLE_ID is required"),
        (
            ["device", "simulate", "--count", "2", "--app-key", "k", "--topic", "t", "--server", "ftp://x"],
            "http(s) URL"
        ),
        (["device", "explode"], "unknown subcommand 'explode'"),
    ])
    func badArgumentsAreOneLineAndExitTwo(arguments: [String], message: String) async throws {
        let result = try await TidingsExecutable.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func simulatingAgainstNoServerFailsWithOneLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-sim-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await TidingsExecutable.run([
            "device", "simulate", "--count", "2", "--app-key", "tdg_app_x", "--topic", "com.example.none",
            "--server", "http://127.0.0.1:9", "--directory", directory.path, "--duration", "1",
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("device simulate: device"))
        #expect(result.standardError.contains("registration"))
    }
}
