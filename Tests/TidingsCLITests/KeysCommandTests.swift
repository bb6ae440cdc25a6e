import Foundation
import Testing
import TidingsModel

/// `tidings keys ...` over the administration API of a real tidingsd on loopback.
@Suite struct KeysCommandTests {
    @Test func createShowsTheSecretOnceAndListNeverDoes() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()

        let created = try await backend.tidingsAdmin(
            ["keys", "create", "--app", "CLI", "--kind", "server"], adminKey: admin)
        #expect(created.status == 0, "\(created.standardError)")
        let lines = created.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("Server key key_") == true)
        #expect(lines.first?.hasSuffix(" for app \(backend.appID):") == true)
        let secret = try #require(lines.dropFirst().first)
        #expect(secret.hasPrefix("tdg_srv_") && secret.count == 51)
        #expect(lines.last?.hasPrefix("Store this key now: it is not shown again") == true)
        // The secret is a working server key.
        let used = try await backend.tidings(["devices", "list", "--server", backend.endpoint, "--key", secret])
        #expect(used.status == 0, "\(used.standardError)")

        let json = try await backend.tidingsAdmin(
            ["keys", "create", "--app", backend.appID, "--kind", "app", "--json"], adminKey: admin)
        #expect(json.status == 0, "\(json.standardError)")
        let answer = try JSONValue.parse(json.standardOutput)
        let appSecret = try #require(answer["secret"]?.stringValue)
        #expect(appSecret.hasPrefix("tdg_app_"))
        #expect(answer["key"]?["kind"] == "app")
        #expect(json.standardError.contains("Store this key now"))

        let list = try await backend.tidingsAdmin(["keys", "list", "--app", "CLI"], adminKey: admin)
        #expect(list.status == 0, "\(list.standardError)")
        let rows = list.standardOutput.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("KEY ") == true)
        #expect(rows.last == "4 key(s)")
        let listJSON = try await backend.tidingsAdmin(["keys", "list", "--app", "CLI", "--json"], adminKey: admin)
        let keys = try JSONValue.parse(listJSON.standardOutput)["keys"]?.arrayValue ?? []
        #expect(keys.count == 4)
        for output in [list.standardOutput, listJSON.standardOutput] {
            for key in [secret, appSecret, backend.serverKey, backend.appKey, admin] {
                #expect(!output.contains(key))
            }
        }
        // Each key shows as its hint: the kind's prefix and four characters.
        #expect(rows.contains { $0.contains(String(secret.prefix(12)) + "…") })
        await backend.stop()
    }

    @Test func revokedKeysAreRefused() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let created = try await backend.tidingsAdmin(
            ["keys", "create", "--app", "CLI", "--kind", "server", "--json"], adminKey: admin)
        let answer = try JSONValue.parse(created.standardOutput)
        let secret = try #require(answer["secret"]?.stringValue)
        let keyID = try #require(answer["key"]?["key_id"]?.stringValue)

        let revoked = try await backend.tidingsAdmin(["keys", "revoke", keyID], adminKey: admin)
        #expect(revoked.status == 0, "\(revoked.standardError)")
        #expect(revoked.standardOutput.hasPrefix("Revoked server key \(keyID) (\(secret.prefix(12))…) at "))

        let used = try await backend.tidings(["devices", "list", "--server", backend.endpoint, "--key", secret])
        #expect(used.status == 1)
        #expect(used.standardError.contains("answered 401 revoked_key"))

        let listed = try await backend.tidingsAdmin(["keys", "list", "--app", "CLI", "--json"], adminKey: admin)
        let keys = try JSONValue.parse(listed.standardOutput)["keys"]?.arrayValue ?? []
        let entry = try #require(keys.first { $0["key_id"]?.stringValue == keyID })
        #expect(entry["revoked_at"]?.integerValue != nil)

        let unknown = try await backend.tidingsAdmin(["keys", "revoke", "key_nothing"], adminKey: admin)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("answered 404 not_found"))
        await backend.stop()
    }

    @Test func usageErrors() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let adminKind = try await backend.tidingsAdmin(
            ["keys", "create", "--app", "CLI", "--kind", "admin"], adminKey: admin)
        #expect(adminKind.status == 2)
        #expect(adminKind.standardError.contains("tidingsd keys create --kind admin"))
        let noApp = try await backend.tidingsAdmin(["keys", "list"], adminKey: admin)
        #expect(noApp.status == 2)
        #expect(noApp.standardError.contains("--app APP is required"))
        let noID = try await backend.tidingsAdmin(["keys", "revoke"], adminKey: admin)
        #expect(noID.status == 2)
        await backend.stop()
    }
}
