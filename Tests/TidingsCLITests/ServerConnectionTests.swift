import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// Where the server-talking commands get their address and key, and how they fail when it is wrong.
@Suite struct ServerConnectionTests {
    /// Writes a config file in the backend's directory and answers its path.
    func writeConfig(_ backend: APIBackend, _ json: String, name: String = "config.json") throws -> String {
        let url = backend.directory.appendingPathComponent(name)
        try Data(json.utf8).write(to: url)
        return url.path
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheConfigFile() async throws {
        let backend = try APIBackend(sending: false)
        let wrongServer = "http://127.0.0.1:9"
        let config = try writeConfig(backend, #"{"server": "\#(backend.endpoint)", "key": "\#(backend.serverKey)"}"#)

        // The file alone is enough.
        let fromFile = try await backend.tidings(["devices", "list", "--json", "--config", config])
        #expect(fromFile.status == 0, "\(fromFile.standardError)")

        // The default file, found through HOME.
        let defaultDirectory = backend.directory.appendingPathComponent(".config/tidings")
        try FileManager.default.createDirectory(at: defaultDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: config, toPath: defaultDirectory.appendingPathComponent("config.json").path)
        let fromDefault = try await backend.tidings(["devices", "list", "--json"])
        #expect(fromDefault.status == 0, "\(fromDefault.standardError)")

        // The environment beats the file: a wrong key from the environment is used and refused.
        let envKey = try await backend.tidings(
            ["devices", "list", "--config", config], environment: ["TIDINGS_SERVER_KEY": "tdg_srv_wrong"])
        #expect(envKey.status == 1)
        #expect(envKey.standardError.contains("answered 401"))
        // ... and a wrong server from the environment is where it goes.
        let envServer = try await backend.tidings(
            ["devices", "list", "--config", config], environment: ["TIDINGS_SERVER": wrongServer])
        #expect(envServer.status == 3)
        #expect(envServer.standardError.contains("cannot reach tidingsd at \(wrongServer)"))

        // Flags beat both.
        let flags = try await backend.tidings(
            [
                "devices", "list", "--json", "--config", config, "--server", backend.endpoint, "--key",
                backend.serverKey,
            ],
            environment: ["TIDINGS_SERVER": wrongServer, "TIDINGS_SERVER_KEY": "tdg_srv_wrong"])
        #expect(flags.status == 0, "\(flags.standardError)")
        let wrongFlag = try await backend.tidings(
            ["devices", "list", "--server", wrongServer],
            environment: ["TIDINGS_SERVER": backend.endpoint, "TIDINGS_SERVER_KEY": backend.serverKey])
        #expect(wrongFlag.status == 3)

        // The environment alone.
        let envOnly = try await backend.tidings(
            ["devices", "list", "--json"],
            environment: ["TIDINGS_SERVER": backend.endpoint, "TIDINGS_SERVER_KEY": backend.serverKey])
        #expect(envOnly.status == 0, "\(envOnly.standardError)")
        await backend.stop()
    }

    @Test func xdgConfigHomeHoldsTheDefaultFile() async throws {
        let backend = try APIBackend(sending: false)
        let base = backend.directory.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(
            at: base.appendingPathComponent("tidings"), withIntermediateDirectories: true)
        try Data(#"{"server": "\#(backend.endpoint)", "key": "\#(backend.serverKey)"}"#.utf8).write(
            to: base.appendingPathComponent("tidings/config.json"))
        let result = try await backend.tidings(["devices", "list"], environment: ["XDG_CONFIG_HOME": base.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("0 installation(s)\n"))
        await backend.stop()
    }

    @Test func aWrongKeyIsOneLineWithTheStatus() async throws {
        let backend = try APIBackend(sending: false)
        let result = try await backend.tidings([
            "devices", "list", "--server", backend.endpoint, "--key",
            "tdg_srv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("tidings: \(backend.endpoint) answered 401 invalid_key: ") == true)

        // An app key may not read installations.
        let appKey = try await backend.tidings([
            "stats", "msg_x", "--server", backend.endpoint, "--key", backend.appKey,
        ])
        #expect(appKey.status == 1)
        #expect(appKey.standardError.contains("answered 403 forbidden"))
        await backend.stop()
    }

    @Test func aServerThatIsNotRunningSaysWhereAndHowToStartOne() async throws {
        // Port 9 (discard) on loopback: nothing listens there in the test environment.
        let result = try await TidingsExecutable.run(
            ["send", "--all", "--title", "Hi", "--server", "http://127.0.0.1:9", "--key", "tdg_srv_x"],
            environment: ["HOME": "/nonexistent"])
        #expect(result.status == 3)
        #expect(result.standardError.hasPrefix("tidings: cannot reach tidingsd at http://127.0.0.1:9 ("))
        #expect(result.standardError.contains("start one with 'tidingsd'"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    /// The CLI waits for a slow server asleep: URLSession on Linux kept it on a core for the whole wait, and
    /// CLI processes waiting together took the cores their servers needed.
    @Test func waitingForASlowServerTakesNoCPU() async throws {
        let slow = try LoopbackServer(routes: [
            HTTPRoute.blocking("GET", "/v1/installations") { _ in
                Thread.sleep(forTimeInterval: 2)
                return .error(HTTPError(status: 503, code: "unavailable", message: "slow on purpose"))
            }
        ])
        defer { slow.server.stopNow() }
        let result = try await TidingsExecutable.run(
            ["devices", "list", "--server", "http://127.0.0.1:\(slow.port)", "--key", "tdg_srv_x"],
            environment: ["HOME": "/nonexistent"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("slow on purpose"), "\(result.standardError)")
        // Starting the binary costs a few hundredths of a second; the spinning wait cost a second or more.
        #expect(result.cpuTime < .milliseconds(500), "the CLI spent \(result.cpuTime) of CPU in a 2 s wait")
    }

    @Test func missingOrMalformedSettingsAreUsageErrors() async throws {
        let backend = try APIBackend(sending: false)
        let noKey = try await backend.tidings(["devices", "list", "--server", backend.endpoint])
        #expect(noKey.status == 2)
        #expect(noKey.standardError.contains("no server key: pass --key KEY, set TIDINGS_SERVER_KEY"))

        let badURL = try await backend.tidings(["devices", "list", "--server", "ftp://x", "--key", "k"])
        #expect(badURL.status == 2)
        #expect(badURL.standardError.contains("the server 'ftp://x' (from --server) is not an http(s) URL"))

        let missingFile = try await backend.tidings(["devices", "list", "--config", "/nonexistent/tidings.json"])
        #expect(missingFile.status == 2)
        #expect(missingFile.standardError.contains("cannot read the config file /nonexistent/tidings.json"))

        let notJSON = try writeConfig(backend, "server = x", name: "bad.json")
        let malformed = try await backend.tidings(["devices", "list", "--config", notJSON])
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("is not JSON"))

        let wrongType = try writeConfig(backend, #"{"key": 42}"#, name: "typed.json")
        let typed = try await backend.tidings(["devices", "list", "--config", wrongType])
        #expect(typed.status == 2)
        #expect(typed.standardError.contains(#""key" must be a string"#))

        let fileServer = try writeConfig(backend, #"{"server": "nonsense"}"#, name: "server.json")
        let badFileServer = try await backend.tidings(["devices", "list", "--config", fileServer, "--key", "k"])
        #expect(badFileServer.standardError.contains("(from \(fileServer): server)"))
        await backend.stop()
    }
}
