import Foundation

extension ServerClient {
    /// The client for a command parsed with ``ServerConnection/optionNames``: `--server`, `--key`, `--config`,
    /// then `TIDINGS_SERVER` / `TIDINGS_SERVER_KEY`, then the config file. With `key: .admin`, for a command
    /// parsed with ``ServerConnection/adminOptionNames``: `--admin-key`, `TIDINGS_ADMIN_KEY`, `admin_key`.
    /// - Throws: ``CommandLineError`` (usage) when the address is malformed or no key is set anywhere.
    init(
        arguments: ArgumentList, key: ConnectionKey = .server,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        self.init(connection: try ServerConnection.resolve(arguments, key: key, environment: environment))
    }
}
