import Foundation
import Testing
import TidingsHTTP
import TidingsModel

/// `tidings audit` over a real tidingsd on loopback: changes made with keys, named by key id, never a secret.
@Suite struct AuditCommandTests {
    @Test func listsChangesByKeyNewestFirstAndPagesWithoutShowingSecrets() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let created = try await backend.tidingsAdmin(
            ["keys", "create", "--app", "CLI", "--kind", "server", "--json"], adminKey: admin)
        #expect(created.status == 0, "\(created.standardError)")
        let secret = try #require(try JSONValue.parse(created.standardOutput)["secret"]?.stringValue)
        // Refused, and recorded with its outcome.
        await #expect(throws: HTTPError.self) {
            try await backend.call("DELETE", "/v1/messages/msg_none", key: backend.serverKey)
        }

        let listed = try await backend.tidingsAdmin(["audit"], adminKey: admin)
        #expect(listed.status == 0, "\(listed.standardError)")
        let rows = listed.standardOutput.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("AT ") == true)
        #expect(rows.count == 4, "\(listed.standardOutput)")
        #expect(rows[1].contains("server_key key_") && rows[1].contains("DELETE /v1/messages/{message_id}"))
        #expect(rows[1].contains("404"))
        #expect(rows[2].contains("admin_key key_") && rows[2].contains("POST /v1/admin/apps/{app}/keys"))
        #expect(rows[2].contains("201"))
        #expect(rows.last == "2 entries")

        let page = try await backend.tidingsAdmin(["audit", "--limit", "1", "--json"], adminKey: admin)
        let answer = try JSONValue.parse(page.standardOutput)
        #expect(answer["entries"]?.arrayValue?.count == 1)
        let cursor = try #require(answer["next_cursor"]?.stringValue)
        let next = try await backend.tidingsAdmin(["audit", "--limit", "1", "--cursor", cursor], adminKey: admin)
        #expect(next.standardOutput.contains("POST /v1/admin/apps/{app}/keys"))
        for output in [listed.standardOutput, page.standardOutput, next.standardOutput] {
            for key in [secret, admin, backend.serverKey] { #expect(!output.contains(key)) }
        }
        #expect(try await backend.tidingsAdmin(["audit", "--limit", "0"], adminKey: admin).status == 2)
        await backend.stop()
    }
}
