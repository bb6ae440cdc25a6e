import Foundation
import Testing
import TidingsModel
import TidingsStore

/// `tidings apps ...` over the administration API of a real tidingsd on loopback, with an admin key made on
/// the store.
@Suite struct AppsCommandTests {
    /// A `TwoColumnText` row of `tidings apps show`: labels padded to the widest, "Rate limit", plus two spaces.
    func row(_ label: String, _ value: String) -> String {
        label.padding(toLength: 12, withPad: " ", startingAt: 0) + "  " + value + "\n"
    }

    @Test func createListShowAndSetIdentity() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()

        let created = try await backend.tidingsAdmin(
            ["apps", "create", "Shop", "--bundle-id", "com.example.shop", "--json"], adminKey: admin)
        #expect(created.status == 0, "\(created.standardError)")
        let app = try JSONValue.parse(created.standardOutput)
        #expect(app["name"] == "Shop")
        #expect(app["bundle_id"] == "com.example.shop")
        #expect(app["identity_verification"] == "off")
        let appID = try #require(app["app_id"]?.stringValue)
        #expect(try backend.store.app(named: "Shop")?.id == appID)

        let list = try await backend.tidingsAdmin(["apps", "list"], adminKey: admin)
        #expect(list.status == 0, "\(list.standardError)")
        let lines = list.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("APP ") == true)
        #expect(lines.first?.contains("NAME") == true)
        #expect(lines.contains { $0.hasPrefix(appID) && $0.contains("Shop") && $0.contains("com.example.shop") })
        #expect(lines.contains { $0.hasPrefix(backend.appID) && $0.contains("CLI") })
        #expect(lines.last == "2 app(s)")
        let listJSON = try await backend.tidingsAdmin(["apps", "list", "--json"], adminKey: admin)
        let names = try JSONValue.parse(listJSON.standardOutput)["apps"]?.arrayValue?.compactMap { $0["name"] }
        #expect(Set(names ?? []) == ["CLI", "Shop"])

        // By name or by id.
        for reference in ["Shop", appID] {
            let shown = try await backend.tidingsAdmin(["apps", "show", reference], adminKey: admin)
            #expect(shown.status == 0, "\(shown.standardError)")
            #expect(shown.standardOutput.hasPrefix(row("App", appID) + row("Name", "Shop")))
            #expect(shown.standardOutput.contains(row("Bundle ID", "com.example.shop")))
            #expect(shown.standardOutput.contains(row("Identity", "off")))
            #expect(shown.standardOutput.contains(row("Rate limit", "default")))
            #expect(shown.standardOutput.contains(row("APNs", "not configured")))
            #expect(shown.standardOutput.contains(row("FCM", "not configured")))
        }

        let required = try await backend.tidingsAdmin(
            ["apps", "set-identity", "Shop", "--mode", "required"], adminKey: admin)
        #expect(required.status == 0, "\(required.standardError)")
        #expect(required.standardOutput.contains(row("Identity", "required")))
        #expect(try backend.store.app(named: "Shop")?.identityVerification == .required)

        let badMode = try await backend.tidingsAdmin(
            ["apps", "set-identity", "Shop", "--mode", "sometimes"], adminKey: admin)
        #expect(badMode.status == 2)
        #expect(badMode.standardError.contains("--mode must be off, optional or required"))
        #expect(try backend.store.app(named: "Shop")?.identityVerification == .required)
        await backend.stop()
    }

    @Test func setRateAndBackToTheDefault() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let limited = try await backend.tidingsAdmin(["apps", "set-rate", "CLI", "50", "--json"], adminKey: admin)
        #expect(limited.status == 0, "\(limited.standardError)")
        #expect(try JSONValue.parse(limited.standardOutput)["requests_per_second"] == 50)
        #expect(try backend.store.app(id: backend.appID)?.requestsPerSecond == 50)
        let shown = try await backend.tidingsAdmin(["apps", "show", "CLI"], adminKey: admin)
        #expect(shown.standardOutput.contains(row("Rate limit", "50 requests/s per key")))

        let reset = try await backend.tidingsAdmin(["apps", "set-rate", "CLI", "--default"], adminKey: admin)
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(reset.standardOutput.contains(row("Rate limit", "default")))
        #expect(try backend.store.app(id: backend.appID)?.requestsPerSecond == nil)

        let both = try await backend.tidingsAdmin(["apps", "set-rate", "CLI", "5", "--default"], adminKey: admin)
        #expect(both.status == 2)
        let zero = try await backend.tidingsAdmin(["apps", "set-rate", "CLI", "0"], adminKey: admin)
        #expect(zero.status == 2)
        // Past the server's range: its refusal, exit 1.
        let huge = try await backend.tidingsAdmin(["apps", "set-rate", "CLI", "2000000"], adminKey: admin)
        #expect(huge.status == 1)
        #expect(huge.standardError.contains("answered 400"))
        await backend.stop()
    }

    @Test func refusalsAndUsageErrors() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let taken = try await backend.tidingsAdmin(
            ["apps", "create", "CLI", "--bundle-id", "com.example.other"], adminKey: admin)
        #expect(taken.status == 1)
        #expect(taken.standardError.hasPrefix("tidings: \(backend.endpoint) answered 409"))

        let missing = try await backend.tidingsAdmin(["apps", "show", "nothing"], adminKey: admin)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("answered 404 not_found"))

        let noBundle = try await backend.tidingsAdmin(["apps", "create", "Shop"], adminKey: admin)
        #expect(noBundle.status == 2)
        #expect(noBundle.standardError.contains("--bundle-id is required"))
        let unknown = try await backend.tidingsAdmin(["apps", "rename", "CLI"], adminKey: admin)
        #expect(unknown.status == 2)
        await backend.stop()
    }

    @Test func apnsFCMAndIdentityKeysGoInAndNeverComeBack() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let privateKey = backend.directory.appendingPathComponent("AuthKey.p8").path
        let publicKey = backend.directory.appendingPathComponent("public.pem").path
        let rsaKey = backend.directory.appendingPathComponent("rsa.pem").path
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privateKey])
        try openssl(["pkey", "-in", privateKey, "-pubout", "-out", publicKey])
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsaKey])

        let apns = try await backend.tidingsAdmin(
            ["apps", "set-apns", "CLI", "--key-file", privateKey, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456"],
            adminKey: admin)
        #expect(apns.status == 0, "\(apns.standardError)")
        #expect(apns.standardOutput.contains(row("APNs", "key ABC123DEFG, team TEAM123456")))
        #expect(!apns.standardOutput.contains("PRIVATE KEY"))

        let account: JSONValue = [
            "type": "service_account", "project_id": "cli-project",
            "private_key": .string(try String(contentsOfFile: rsaKey, encoding: .utf8)),
            "client_email": "push@cli-project.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        let accountFile = backend.directory.appendingPathComponent("service-account.json")
        try Data(try account.serialized()).write(to: accountFile)
        let fcm = try await backend.tidingsAdmin(
            ["apps", "set-fcm", "CLI", "--service-account", accountFile.path, "--json"], adminKey: admin)
        #expect(fcm.status == 0, "\(fcm.standardError)")
        let fcmAnswer = try JSONValue.parse(fcm.standardOutput)
        #expect(fcmAnswer["fcm"]?["project_id"] == "cli-project")
        #expect(fcmAnswer["apns"]?["key_id"] == "ABC123DEFG")
        #expect(!fcm.standardOutput.contains("PRIVATE KEY"))

        let shown = try await backend.tidingsAdmin(["apps", "show", "CLI"], adminKey: admin)
        #expect(
            shown.standardOutput.contains(row("FCM", "project cli-project, push@cli-project.iam.gserviceaccount.com")))
        #expect(!shown.standardOutput.contains("PRIVATE KEY"))

        let notJSON = try await backend.tidingsAdmin(
            ["apps", "set-fcm", "CLI", "--service-account", privateKey], adminKey: admin)
        #expect(notJSON.status == 2)
        #expect(notJSON.standardError.contains("is not a JSON object"))
        #expect(!notJSON.standardError.contains("PRIVATE KEY"))

        for provider in ["apns", "fcm"] {
            let removed = try await backend.tidingsAdmin(["apps", "remove-\(provider)", "CLI"], adminKey: admin)
            #expect(removed.status == 0, "\(removed.standardError)")
            #expect(removed.standardOutput.contains(row(provider == "apns" ? "APNs" : "FCM", "not configured")))
            let again = try await backend.tidingsAdmin(["apps", "remove-\(provider)", "CLI"], adminKey: admin)
            #expect(again.status == 1)
        }

        let added = try await backend.tidingsAdmin(
            ["apps", "add-identity-key", "CLI", "--key-id", "backend-1", "--public-key", publicKey], adminKey: admin)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput == "Identity key backend-1 (ES256) added to app CLI.\n")
        let keys = try await backend.tidingsAdmin(["apps", "identity-keys", "CLI"], adminKey: admin)
        let keyLines = keys.standardOutput.split(separator: "\n").map(String.init)
        #expect(keyLines.first?.hasPrefix("KEY ID     ALGORITHM  CREATED") == true)
        #expect(keyLines.contains { $0.hasPrefix("backend-1  ES256") })
        #expect(keyLines.last == "1 identity key(s)")

        let removed = try await backend.tidingsAdmin(
            ["apps", "remove-identity-key", "CLI", "backend-1", "--json"], adminKey: admin)
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try JSONValue.parse(removed.standardOutput)["removed"] == true)
        let none = try await backend.tidingsAdmin(["apps", "identity-keys", "CLI", "--json"], adminKey: admin)
        #expect(try JSONValue.parse(none.standardOutput)["identity_keys"] == [])
        await backend.stop()
    }

    func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
    }
}
