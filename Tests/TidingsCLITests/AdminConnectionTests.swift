import Foundation
import Testing
import TidingsModel

/// Where `tidings apps` and `tidings keys` get their admin key, and what they say when it is missing or is
/// not an admin key.
@Suite struct AdminConnectionTests {
    @Test func aMissingAdminKeyIsAUsageErrorNamingWhereToSetIt() async throws {
        let backend = try APIBackend(sending: false)
        for command in [["apps", "list"], ["keys", "list", "--app", "CLI"]] {
            // A server key in the environment and the config file does not stand in for the admin key.
            let config = backend.directory.appendingPathComponent("config.json")
            try Data(#"{"key": "\#(backend.serverKey)"}"#.utf8).write(to: config)
            let result = try await backend.tidings(
                command + ["--server", backend.endpoint, "--config", config.path],
                environment: ["TIDINGS_SERVER_KEY": backend.serverKey])
            #expect(result.status == 2)
            #expect(
                result.standardError.hasPrefix("tidings: no admin key: pass --admin-key KEY, set TIDINGS_ADMIN_KEY"))
            #expect(result.standardError.contains("tidingsd keys create --kind admin"))
        }
        await backend.stop()
    }

    @Test func theAdminKeyComesFromTheFlagThenTheEnvironmentThenTheConfigFile() async throws {
        let backend = try APIBackend(sending: false)
        let admin = try backend.makeAdminKey()
        let config = backend.directory.appendingPathComponent("config.json")
        try Data(#"{"server": "\#(backend.endpoint)", "admin_key": "\#(admin)"}"#.utf8).write(to: config)

        let fromFile = try await backend.tidings(["apps", "list", "--json", "--config", config.path])
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(try JSONValue.parse(fromFile.standardOutput)["apps"]?.arrayValue?.count == 1)

        let wrong = "tdg_adm_" + String(repeating: "A", count: 43)
        let fromEnvironment = try await backend.tidings(
            ["apps", "list", "--config", config.path], environment: ["TIDINGS_ADMIN_KEY": wrong])
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.standardError.contains("answered 401 invalid_key"))

        let fromFlag = try await backend.tidings(
            ["apps", "list", "--config", config.path, "--admin-key", admin], environment: ["TIDINGS_ADMIN_KEY": wrong])
        #expect(fromFlag.status == 0, "\(fromFlag.standardError)")
        await backend.stop()
    }

    @Test func serverAndAppKeysAreRefusedWithAClearMessage() async throws {
        let backend = try APIBackend(sending: false)
        for (key, kind) in [(backend.serverKey, "a server key"), (backend.appKey, "an app key")] {
            let result = try await backend.tidingsAdmin(["apps", "list"], adminKey: key)
            #expect(result.status == 1)
            #expect(result.standardError.hasPrefix("tidings: \(backend.endpoint) answered 403 forbidden: "))
            #expect(
                result.standardError.contains(
                    "may not administer. The key from --admin-key, TIDINGS_ADMIN_KEY or admin_key is \(kind); "
                        + "apps and keys need an admin key (tdg_adm_…)"))
            #expect(result.standardError.contains("'tidingsd keys create --kind admin'"))
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
        let fromEnvironment = try await backend.tidings(
            ["keys", "create", "--app", "CLI", "--kind", "server", "--server", backend.endpoint],
            environment: ["TIDINGS_ADMIN_KEY": backend.serverKey])
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.standardError.contains("is a server key"))
        #expect(fromEnvironment.standardOutput.isEmpty)

        // The other way round: an admin key reads no app's data.
        let admin = try backend.makeAdminKey()
        let devices = try await backend.tidings(["devices", "list", "--server", backend.endpoint, "--key", admin])
        #expect(devices.status == 1)
        #expect(devices.standardError.contains("answered 403 forbidden"))
        #expect(devices.standardError.contains("pass a server key (tdg_srv_…)"))
        await backend.stop()
    }
}
