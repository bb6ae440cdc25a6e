import Foundation
import TidingsModel

/// Which tidingsd to talk to and with which key, resolved from flags, environment and a config file.
///
/// Each setting is looked up on its own, first match wins: the flag (`--server URL`, `--key KEY` or
/// `--admin-key KEY`), then the environment (`TIDINGS_SERVER`, `TIDINGS_SERVER_KEY` or `TIDINGS_ADMIN_KEY`),
/// then the config file (`--config PATH`, by default `$XDG_CONFIG_HOME/tidings/config.json` or
/// `~/.config/tidings/config.json`):
///
/// ```json
/// {"server": "http://127.0.0.1:8080", "key": "tdg_srv_...", "admin_key": "tdg_adm_..."}
/// ```
///
/// Without any server setting the default is ``defaultServer``, where a plain `tidingsd` listens.
struct ServerConnection: Sendable, Hashable {
    /// The API's base URL, without a trailing slash.
    var server: URL
    /// The server key (`tdg_srv_…`) or admin key (`tdg_adm_…`), sent as `Authorization: Bearer`.
    var key: String
    /// Which of the two `key` is, so that a refusal can say which setting to fix.
    var keyKind: ConnectionKey = .server

    /// Where `tidingsd` listens when started without `--listen`.
    static let defaultServer = "http://127.0.0.1:8080"
    static let serverVariable = "TIDINGS_SERVER"
    static let keyVariable = ConnectionKey.server.environmentVariable
    /// The options every command that talks to tidingsd with a server key accepts.
    static let optionNames: Set<String> = ["server", ConnectionKey.server.option, "config"]
    /// The options of the administration commands (`apps`, `keys`), which present an admin key instead.
    static let adminOptionNames: Set<String> = ["server", ConnectionKey.admin.option, "config"]
    /// The options' help lines, shared by every command's usage text.
    static let usage = """
        connection (flags win over the environment, which wins over the config file):
          --server URL       tidingsd's address (TIDINGS_SERVER; default \(defaultServer))
          --key KEY          a server key, tdg_srv_... (TIDINGS_SERVER_KEY)
          --config PATH      a JSON file {"server": URL, "key": KEY} (default ~/.config/tidings/config.json)
        """
    /// ``usage`` for the administration commands.
    static let adminUsage = """
        connection (flags win over the environment, which wins over the config file):
          --server URL       tidingsd's address (TIDINGS_SERVER; default \(defaultServer))
          --admin-key KEY    an admin key, tdg_adm_... (TIDINGS_ADMIN_KEY), made on the store's host with
                             'tidingsd keys create --kind admin'; server and app keys are refused
          --config PATH      a JSON file {"server": URL, "admin_key": KEY} (default ~/.config/tidings/config.json)
        """

    /// Resolves the connection for a command parsed with ``optionNames`` (or ``adminOptionNames`` for `.admin`).
    ///
    /// - Parameters:
    ///   - keyKind: Which key the command presents.
    ///   - environment: The process environment (tests pass their own).
    ///   - readFile: Reads the config file; a missing default file counts as empty, a missing `--config` is an error.
    /// - Throws: ``CommandLineError`` (usage) naming the setting that is missing or malformed.
    static func resolve(
        _ arguments: ArgumentList, key keyKind: ConnectionKey = .server,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws -> ServerConnection {
        let explicitConfig = arguments.option("config")
        let configPath = explicitConfig ?? defaultConfigPath(environment)
        let file = try configFile(at: configPath, required: explicitConfig != nil, readFile: readFile)

        func pick(_ flag: String, _ variable: String, _ fileKey: String) -> (value: String, source: String)? {
            if let value = arguments.option(flag), !value.isEmpty { return (value, "--\(flag)") }
            if let value = environment[variable], !value.isEmpty { return (value, variable) }
            if let path = configPath, let value = file[fileKey], !value.isEmpty {
                return (value, "\(path): \(fileKey)")
            }
            return nil
        }

        let serverText = pick("server", serverVariable, "server") ?? (defaultServer, "the default")
        let trimmed = serverText.value.hasSuffix("/") ? String(serverText.value.dropLast()) : serverText.value
        guard let server = URL(string: trimmed), server.scheme == "http" || server.scheme == "https",
            server.host?.isEmpty == false
        else {
            throw CommandLineError.usage(
                "the server '\(serverText.value)' (from \(serverText.source)) is not an http(s) URL")
        }
        guard let key = pick(keyKind.option, keyKind.environmentVariable, keyKind.configMember) else {
            throw CommandLineError.usage(keyKind.missingMessage)
        }
        return ServerConnection(server: server, key: key.value, keyKind: keyKind)
    }

    /// `$XDG_CONFIG_HOME/tidings/config.json`, else `$HOME/.config/tidings/config.json`.
    static func defaultConfigPath(_ environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty { return base + "/tidings/config.json" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/tidings/config.json"
    }

    /// The string members of the config file at `path`; empty when the default file does not exist.
    private static func configFile(at path: String?, required: Bool, readFile: (String) throws -> Data) throws
        -> [String: String]
    {
        guard let path else { return [:] }
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            if !required && !FileManager.default.fileExists(atPath: path) { return [:] }
            throw CommandLineError.usage("cannot read the config file \(path)")
        }
        let object: [String: JSONValue]
        do {
            guard let parsed = try JSONValue.parse(data).objectValue else {
                throw CommandLineError.usage("the config file \(path) must hold a JSON object")
            }
            object = parsed
        } catch let error as CommandLineError {
            throw error
        } catch {
            throw CommandLineError.usage("the config file \(path) is not JSON: \(error)")
        }
        var values: [String: String] = [:]
        for name in ["server", ConnectionKey.server.configMember, ConnectionKey.admin.configMember] {
            guard let value = object[name], !value.isNull else { continue }
            guard let string = value.stringValue else {
                throw CommandLineError.usage("the config file \(path): \"\(name)\" must be a string")
            }
            values[name] = string
        }
        return values
    }
}
