import Foundation
import Testing
import TidingsModel

/// `tidings devices list|show` against a real tidingsd API over loopback.
@Suite struct DevicesCommandTests {
    @Test func listFollowsCursorsAcrossPages() async throws {
        let backend = try APIBackend(sending: false)
        // More than one server page (1,000) so the command must follow next_cursor.
        let ids = (0..<1005).map { String(format: "dev-%04d", $0) }
        for (index, id) in ids.enumerated() {
            try await backend.register(id, user: index.isMultiple(of: 2) ? "even" : "odd")
        }
        let all = try await backend.tidingsConnected(["devices", "list", "--json"])
        #expect(all.status == 0, "\(all.standardError)")
        let listed = try JSONValue.parse(all.standardOutput)["installations"]?.arrayValue ?? []
        #expect(listed.compactMap { $0["installation_id"]?.stringValue } == ids)

        let limited = try await backend.tidingsConnected(["devices", "list", "--limit", "1002", "--json"])
        #expect(try JSONValue.parse(limited.standardOutput)["installations"]?.arrayValue?.count == 1002)

        let odd = try await backend.tidingsConnected(["devices", "list", "--user", "odd", "--limit", "3"])
        #expect(odd.status == 0)
        let lines = odd.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "INSTALLATION  USER  PLATFORM  OS  APP  LANGUAGE  COUNTRY  TIME ZONE  TOKENS  PERMISSION  UPDATED")
        #expect(lines.count == 5)
        #expect(lines[1].hasPrefix("dev-0001      odd   ios       -   -    -         -        -          apns    -   "))
        #expect(lines[4] == "3 installation(s); more with a larger --limit")
        await backend.stop()
    }

    @Test func listFiltersByTag() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("p-1", user: "alice")
        try await backend.register("p-2", user: "bob")
        try await backend.tag("bob", ["vip"])
        let result = try await backend.tidingsConnected(["devices", "list", "--tag", "vip", "--json"])
        let listed = try JSONValue.parse(result.standardOutput)["installations"]?.arrayValue ?? []
        #expect(listed.map { $0["installation_id"] } == ["p-2"])

        let invalid = try await backend.tidingsConnected(["devices", "list", "--tag", "no spaces"])
        #expect(invalid.status == 1)
        #expect(
            invalid.standardError.hasPrefix("tidings: \(backend.endpoint) answered 400 invalid_tag: tag 'no spaces'"))
        await backend.stop()
    }

    @Test func showPrintsOneInstallation() async throws {
        let backend = try APIBackend(sending: false)
        let token = try await backend.register("phone-1", user: "alice")
        let human = try await backend.tidingsConnected(["devices", "show", "phone-1"])
        #expect(human.status == 0, "\(human.standardError)")
        // Labels line up with the widest one, the indented consent "  notifications".
        #expect(human.standardOutput.contains("Installation     phone-1\n"))
        #expect(human.standardOutput.contains("User             alice\n"))
        #expect(human.standardOutput.contains("APNs token       \(token)\n"))
        #expect(human.standardOutput.contains("  notifications  yes\n"))

        let json = try await backend.tidingsConnected(["devices", "show", "phone-1", "--json"])
        #expect(try JSONValue.parse(json.standardOutput)["apns_token"] == .string(token))

        let missing = try await backend.tidingsConnected(["devices", "show", "nobody"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError
                == "tidings: \(backend.endpoint) answered 404 not_found: there is no installation nobody\n")
        await backend.stop()
    }

    /// The device context of a phone in Japan, as the SDK reports it.
    static let tokyo: [String: JSONValue] = [
        "timezone": "Asia/Tokyo", "language": "ja-JP", "locale": "ja_JP", "country": "JP", "os_name": "iOS",
        "os_version": "18.1", "device_model": "iPhone16,2", "app_version": "2.3.0", "app_build": "412",
        "sdk_version": "1.4.0", "permission": "authorized",
    ]

    @Test func showPrintsTheDeviceContext() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("tokyo-1", user: "aiko", context: Self.tokyo)
        try await backend.register("bare-1")
        // Labels are padded to the widest, the indented consent "  notifications", plus two spaces.
        func row(_ label: String, _ value: String) -> String {
            label.padding(toLength: 17, withPad: " ", startingAt: 0) + value + "\n"
        }
        let shown = try await backend.tidingsConnected(["devices", "show", "tokyo-1"])
        #expect(shown.status == 0, "\(shown.standardError)")
        for (label, value) in [
            ("Time zone", "Asia/Tokyo"), ("Language", "ja-JP"), ("Locale", "ja_JP"), ("Country", "JP"),
            ("OS", "iOS 18.1"), ("Device model", "iPhone16,2"), ("App version", "2.3.0 (412)"),
            ("SDK version", "1.4.0"), ("Permission", "authorized"),
        ] {
            #expect(shown.standardOutput.contains(row(label, value)), "\(label)")
        }
        // When each token was registered, under its own heading.
        #expect(shown.standardOutput.contains("\nRegistered\n  apns           20"))

        // Unknown context is shown as unknown, not left out.
        let bare = try await backend.tidingsConnected(["devices", "show", "bare-1"])
        #expect(bare.standardOutput.contains(row("Time zone", "-")))
        #expect(bare.standardOutput.contains(row("OS", "-")))
        #expect(bare.standardOutput.contains(row("App version", "-")))

        let json = try await backend.tidingsConnected(["devices", "show", "tokyo-1", "--json"])
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["language"] == "ja-JP")
        #expect(answer["app_build"] == "412")
        #expect(answer["token_registered_at"]?["apns"]?.integerValue != nil)
        await backend.stop()
    }

    @Test func listShowsContextColumnsAndFiltersByDeviceFields() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("tokyo-1", context: Self.tokyo)
        var london = Self.tokyo
        london["timezone"] = "Europe/London"
        london["language"] = "en-GB"
        london["country"] = "GB"
        london["permission"] = "provisional"
        try await backend.register("london-1", context: london)
        try await backend.register("bare-1")

        func ids(_ filters: [String]) async throws -> [String] {
            let result = try await backend.tidingsConnected(["devices", "list", "--json"] + filters)
            #expect(result.status == 0, "\(result.standardError)")
            let installations = try JSONValue.parse(result.standardOutput)["installations"]?.arrayValue ?? []
            return installations.compactMap { $0["installation_id"]?.stringValue }
        }
        #expect(try await ids([]) == ["bare-1", "london-1", "tokyo-1"])
        #expect(try await ids(["--language", "ja-JP"]) == ["tokyo-1"])
        #expect(try await ids(["--language", "en-GB"]) == ["london-1"])
        #expect(try await ids(["--language", "fr"]) == [])
        // An empty value: installations where the field is unknown.
        #expect(try await ids(["--timezone", ""]) == ["bare-1"])
        #expect(try await ids(["--timezone", "Europe/London"]) == ["london-1"])
        #expect(try await ids(["--os-name", "iOS", "--country", "JP"]) == ["tokyo-1"])
        #expect(try await ids(["--app-version", "2.3.0"]) == ["london-1", "tokyo-1"])
        #expect(try await ids(["--permission", "provisional"]) == ["london-1"])
        #expect(try await ids(["--platform", "ios", "--permission", ""]) == ["bare-1"])

        let table = try await backend.tidingsConnected(["devices", "list", "--language", "ja-JP"])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(
            lines[1].hasPrefix(
                "tokyo-1       -     ios       iOS 18.1  2.3.0 (412)  ja-JP     JP       Asia/Tokyo  apns    authorized  "
            ))
        #expect(lines[2] == "1 installation(s)")
        await backend.stop()
    }
}
