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
            lines.first?.hasPrefix("INSTALLATION  USER  PLATFORM  ENVIRONMENT  TOKENS  PERMISSION  UPDATED") == true)
        #expect(lines.count == 5)
        #expect(lines[1].hasPrefix("dev-0001      odd   ios       production   apns    -"))
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
}
