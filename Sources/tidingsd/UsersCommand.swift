import Foundation
import TidingsServer
import TidingsStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tidingsd users ...`: the web console's operator accounts, managed on the store.
///
/// ```
/// tidingsd users create NAME --role admin|editor|viewer [--generate-password]
/// tidingsd users list
/// tidingsd users set-role NAME --role admin|editor|viewer
/// tidingsd users reset-password NAME [--generate-password]
/// tidingsd users reset-2fa NAME
/// tidingsd users remove NAME
/// ```
/// A password never comes from the command line (ps shows it): it is read from `TIDINGS_OPERATOR_PASSWORD`,
/// else prompted for without echo on a terminal, else read as the first line of standard input; or, with
/// `--generate-password`, made up and printed once. Exit status: 0 done, 1 refused, 2 usage.
enum UsersCommand {
    static let name = "users"
    static let passwordVariable = "TIDINGS_OPERATOR_PASSWORD"

    static let usage = """
        usage: tidingsd users create NAME --role admin|editor|viewer [--generate-password]
               tidingsd users list
               tidingsd users set-role NAME --role admin|editor|viewer
               tidingsd users reset-password NAME [--generate-password]
               tidingsd users reset-2fa NAME
               tidingsd users remove NAME
        the password comes from \(passwordVariable), a prompt, or standard input; never from arguments
        """

    static func run(_ arguments: [String], configuration: ServerConfiguration, environment: [String: String]) -> Int32 {
        do {
            guard let subcommand = arguments.first else { throw AdminUsageError("expected a users subcommand") }
            let parsed = try AdminArguments(
                Array(arguments.dropFirst()), options: ["role"], flags: ["generate-password"])
            let operators = OperatorAdministration(store: try configuration.openStore())
            func role() throws -> OperatorRole {
                guard let text = parsed.option("role"), let role = OperatorRole(rawValue: text) else {
                    throw AdminUsageError("--role must be admin, editor or viewer")
                }
                return role
            }
            func onlyName() throws -> String {
                guard parsed.positionals.count == 1 else { throw AdminUsageError("users \(subcommand) needs one NAME") }
                return parsed.positionals[0]
            }
            switch subcommand {
            case "create":
                let name = try onlyName()
                let role = try role()
                let (password, generated) = try password(parsed, environment: environment)
                try operators.create(name: name, role: role, password: password)
                say("Operator \(name) created as \(role.rawValue).")
                if generated { say("Password (shown once): \(password)") }
            case "list":
                for account in try operators.list() {
                    let created = Date(timeIntervalSince1970: Double(account.createdAt) / 1000)
                    say("\(account.name)  \(account.role.rawValue)  created \(created.formatted(.iso8601))")
                }
            case "set-role":
                let name = try onlyName()
                let record = try operators.setRole(name: name, role: try role())
                say("Operator \(name) is now \(record.role.rawValue); their sessions ended.")
            case "reset-password":
                let name = try onlyName()
                let (password, generated) = try password(parsed, environment: environment)
                try operators.resetPassword(name: name, password: password)
                say("Password of \(name) changed; their sessions ended.")
                if generated { say("Password (shown once): \(password)") }
            case "reset-2fa":
                let name = try onlyName()
                try operators.resetTwoFactor(name: name)
                say("Two-factor sign-in of \(name) reset; they sign in with their password.")
            case "remove":
                let name = try onlyName()
                try operators.remove(name: name)
                say("Operator \(name) removed.")
            default:
                throw AdminUsageError("unknown users subcommand \(subcommand)")
            }
            return 0
        } catch {
            return CommandFailure.exitStatus(error, usage: usage)
        }
    }

    private static func password(_ parsed: AdminArguments, environment: [String: String]) throws -> (String, Bool) {
        if parsed.flag("generate-password") { return (OperatorAdministration.generatePassword(), true) }
        if let value = environment[passwordVariable], !value.isEmpty { return (value, false) }
        if isatty(STDIN_FILENO) == 1 {
            guard let typed = getpass("Password: ") else { throw AdminUsageError("no password was typed") }
            let first = String(cString: typed)
            guard let again = getpass("Again: "), String(cString: again) == first else {
                throw AdminUsageError("the two passwords differ")
            }
            return (first, false)
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw AdminUsageError("no password on standard input (or set \(passwordVariable))")
        }
        return (line, false)
    }

    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
