import Foundation
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore

/// `tidingsd apps ...` and `tidingsd keys ...`: manage apps and keys directly on the store.
///
/// ```
/// tidingsd apps create NAME --bundle-id ID [--json]
/// tidingsd apps list [--json]
/// tidingsd apps set-apns APP --key-file F --key-id K --team-id T [--json]   (the key goes into the store, never shown)
/// tidingsd apps set-fcm APP --service-account FILE [--json]   (it goes into the store, its key never shown)
/// tidingsd apps set-identity APP --mode off|optional|required [--json]
/// tidingsd apps add-identity-key APP --key-id K --public-key FILE [--json]
/// tidingsd apps remove-identity-key APP KEY_ID [--json]
/// tidingsd keys create --app APP --kind app|server [--json]   (the key is shown once)
/// tidingsd keys create --kind admin [--json]   (for the administration API; the key is shown once)
/// tidingsd keys list [--app APP] [--json]
/// tidingsd keys revoke KEY_ID [--json]
/// ```
/// `APP` is an app id or name. Exit status: 0 done, 1 refused (for example a taken name), 2 usage.
enum AdminCommand {
    static let names: Set<String> = ["apps", "keys"]

    static let usage = """
        usage: tidingsd apps create NAME --bundle-id ID [--json]
               tidingsd apps list [--json]
               tidingsd apps set-apns APP --key-file F --key-id K --team-id T [--json]
               tidingsd apps set-fcm APP --service-account FILE [--json]
               tidingsd apps set-identity APP --mode off|optional|required [--json]
               tidingsd apps add-identity-key APP --key-id K --public-key FILE [--json]
               tidingsd apps remove-identity-key APP KEY_ID [--json]
               tidingsd keys create --app APP --kind app|server [--json]
               tidingsd keys create --kind admin [--json]
               tidingsd keys list [--app APP] [--json]
               tidingsd keys revoke KEY_ID [--json]
        """

    static func run(_ arguments: [String], configuration: ServerConfiguration) throws -> Int32 {
        do {
            let (command, parsed) = try parse(arguments)
            let admin = AppAdministration(store: try configuration.openStore())
            let output = AdminOutput(json: parsed.flag("json"))
            try perform(command, parsed, admin: admin, output: output)
            return 0
        } catch let error as AdminUsageError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n\(usage)\n".utf8))
            return 2
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        } catch let error as AdministrationError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        } catch let error as APNsCredentialError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        } catch let error as FCMCredentialError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        }
    }

    private static func parse(_ arguments: [String]) throws -> (String, AdminArguments) {
        guard arguments.count >= 2, names.contains(arguments[0]) else {
            throw AdminUsageError("expected 'apps' or 'keys' and a subcommand")
        }
        let command = "\(arguments[0]) \(arguments[1])"
        let rest = Array(arguments.dropFirst(2))
        let parsed: AdminArguments
        switch command {
        case "apps create":
            parsed = try AdminArguments(rest, options: ["bundle-id"], flags: ["json"])
            guard parsed.positionals.count == 1, parsed.option("bundle-id") != nil else {
                throw AdminUsageError("apps create needs one NAME and --bundle-id")
            }
        case "apps list":
            parsed = try AdminArguments(rest, flags: ["json"])
        case "apps set-apns":
            parsed = try AdminArguments(rest, options: ["key-file", "key-id", "team-id"], flags: ["json"])
            guard parsed.positionals.count == 1, parsed.option("key-file") != nil, parsed.option("key-id") != nil,
                parsed.option("team-id") != nil
            else {
                throw AdminUsageError("apps set-apns needs one APP, --key-file, --key-id and --team-id")
            }
        case "apps set-fcm":
            parsed = try AdminArguments(rest, options: ["service-account"], flags: ["json"])
            guard parsed.positionals.count == 1, parsed.option("service-account") != nil else {
                throw AdminUsageError("apps set-fcm needs one APP and --service-account FILE")
            }
        case "apps set-identity":
            parsed = try AdminArguments(rest, options: ["mode"], flags: ["json"])
            guard parsed.positionals.count == 1, let mode = parsed.option("mode"),
                AppRecord.IdentityVerification(rawValue: mode) != nil
            else {
                throw AdminUsageError("apps set-identity needs one APP and --mode off, optional or required")
            }
        case "apps add-identity-key":
            parsed = try AdminArguments(rest, options: ["key-id", "public-key"], flags: ["json"])
            guard parsed.positionals.count == 1, parsed.option("key-id") != nil, parsed.option("public-key") != nil
            else {
                throw AdminUsageError("apps add-identity-key needs one APP, --key-id and --public-key FILE")
            }
        case "apps remove-identity-key":
            parsed = try AdminArguments(rest, flags: ["json"])
            guard parsed.positionals.count == 2 else {
                throw AdminUsageError("apps remove-identity-key needs an APP and a KEY_ID")
            }
        case "keys create":
            parsed = try AdminArguments(rest, options: ["app", "kind"], flags: ["json"])
            let kind = parsed.option("kind").flatMap(APIKeyKind.init(rawValue:))
            guard let kind, (kind == .admin) == (parsed.option("app") == nil) else {
                throw AdminUsageError("keys create needs --app APP and --kind app or server, or --kind admin alone")
            }
        case "keys list":
            parsed = try AdminArguments(rest, options: ["app"], flags: ["json"])
        case "keys revoke":
            parsed = try AdminArguments(rest, flags: ["json"])
            guard parsed.positionals.count == 1 else { throw AdminUsageError("keys revoke needs one KEY_ID") }
        default:
            throw AdminUsageError("unknown command '\(command)'")
        }
        let takesPositionals = [
            "apps create", "apps set-apns", "apps set-fcm", "apps set-identity", "apps add-identity-key",
            "apps remove-identity-key", "keys revoke",
        ]
        if !takesPositionals.contains(command)
            && !parsed.positionals.isEmpty
        {
            throw AdminUsageError("unexpected argument '\(parsed.positionals[0])'")
        }
        return (command, parsed)
    }

    private static func perform(
        _ command: String, _ arguments: AdminArguments, admin: AppAdministration, output: AdminOutput
    )
        throws
    {
        switch command {
        case "apps set-apns":
            let app = try admin.app(arguments.positionals[0])
            let credentials = try APNsCredentialsStore(backing: StoreCredentialBacking(store: admin.store)).save(
                appID: app.id, keyFile: arguments.option("key-file")!, keyID: arguments.option("key-id")!,
                teamID: arguments.option("team-id")!)
            output.apnsCredentials(credentials, app: app)
        case "apps set-fcm":
            let app = try admin.app(arguments.positionals[0])
            let account = try FCMCredentialsStore(backing: StoreCredentialBacking(store: admin.store)).save(
                appID: app.id, serviceAccountFile: arguments.option("service-account")!)
            output.fcmCredentials(account, app: app)
        case "apps create":
            let app = try admin.createApp(name: arguments.positionals[0], bundleID: arguments.option("bundle-id")!)
            output.apps([app], created: true)
        case "apps list":
            output.apps(try admin.store.apps(), created: false)
        case "apps set-identity":
            let mode = AppRecord.IdentityVerification(rawValue: arguments.option("mode")!)!
            output.apps([try admin.updateApp(arguments.positionals[0], identityVerification: mode)], created: true)
        case "apps add-identity-key":
            let file = arguments.option("public-key")!
            guard let pem = FileManager.default.contents(atPath: file) else {
                throw AdministrationError(code: "unreadable_file", message: "cannot read the key file \(file)")
            }
            let key = try admin.addIdentityKey(
                app: arguments.positionals[0], keyID: arguments.option("key-id")!,
                pem: String(decoding: pem, as: UTF8.self))
            output.identityKey(key)
        case "apps remove-identity-key":
            try admin.removeIdentityKey(app: arguments.positionals[0], keyID: arguments.positionals[1])
            output.removedIdentityKey(arguments.positionals[1])
        case "keys create":
            let kind = APIKeyKind(rawValue: arguments.option("kind")!)!
            let issued =
                kind == .admin
                ? try admin.createAdminKey() : try admin.createKey(app: arguments.option("app")!, kind: kind)
            output.createdKey(issued.record, secret: issued.secret)
        case "keys list":
            output.keys(try admin.keys(app: arguments.option("app")), appNames: try appNames(admin))
        default:
            output.keys([try admin.revokeKey(id: arguments.positionals[0])], appNames: try appNames(admin))
        }
    }

    private static func appNames(_ admin: AppAdministration) throws -> [String: String] {
        Dictionary(try admin.store.apps().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
