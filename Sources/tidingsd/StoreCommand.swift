import Foundation
import TidingsPostgres
import TidingsServer
import TidingsStore

/// `tidingsd migrate` and `tidingsd store copy`: the store's schema and moving a deployment to PostgreSQL.
///
/// ```
/// tidingsd migrate [--store postgres://...] [--data-dir DIR]   (migrates, prints the schema version)
/// tidingsd store copy --from sqlite:PATH --to postgres://...   (copies everything, verifies the counts)
/// ```
/// Exit status: 0 done, 1 refused or failed (a database that already holds apps, a count that differs),
/// 2 usage. Connection strings are secrets: no message repeats one.
enum StoreCommand {
    static let names: Set<String> = ["migrate", "store"]

    static let usage = """
        usage: tidingsd migrate [--store sqlite|postgres://...] [--data-dir DIR]
               tidingsd store copy --from sqlite:PATH --to postgres://...
        """

    static func run(_ arguments: [String], configuration: ServerConfiguration) -> Int32 {
        do {
            switch arguments.first {
            case "migrate":
                guard arguments.count == 1 else { throw AdminUsageError("migrate takes no arguments but --store") }
                let store = try configuration.openStore()
                let version =
                    switch store {
                    case let postgres as PostgresStore: try postgres.schemaVersion
                    case let sqlite as SQLiteStore: try sqlite.schemaVersion
                    default: 0
                    }
                print("schema at version \(version)")
            case "store":
                let (source, target) = try parseCopy(Array(arguments.dropFirst()))
                // Credentials still kept as files beside the SQLite file go into it first, so they are copied.
                if FileManager.default.fileExists(atPath: source) {
                    let outcome = try CredentialFileImport.run(
                        dataDirectory: URL(fileURLWithPath: source).deletingLastPathComponent(),
                        store: try SQLiteStore(path: source, checkpointInterval: nil), logger: .disabled())
                    for imported in outcome.imported { print("imported credentials file\t\(imported)") }
                    for failure in outcome.failed { print("credentials file not imported\t\(failure)") }
                }
                let tables = try PostgresStore(connectionString: target).copy(fromSQLiteAt: source)
                for table in tables { print("\(table.name)\t\(table.copiedRows)") }
                print("copied \(tables.reduce(0) { $0 + $1.copiedRows }) rows; every table's count matches")
            default:
                throw AdminUsageError("expected 'migrate' or 'store copy'")
            }
            return 0
        } catch {
            return CommandFailure.exitStatus(error, usage: usage)
        }
    }

    /// The SQLite path and the PostgreSQL connection string of `store copy --from sqlite:PATH --to URL`.
    static func parseCopy(_ arguments: [String]) throws -> (source: String, target: String) {
        guard arguments.first == "copy" else { throw AdminUsageError("expected 'store copy'") }
        let parsed = try AdminArguments(Array(arguments.dropFirst()), options: ["from", "to"], flags: [])
        guard parsed.positionals.isEmpty, let from = parsed.option("from"), let to = parsed.option("to") else {
            throw AdminUsageError("store copy needs --from sqlite:PATH and --to postgres://...")
        }
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else {
            throw AdminUsageError("--from must be sqlite:PATH, the tidings.sqlite file of the store to copy")
        }
        guard to.hasPrefix("postgres://") || to.hasPrefix("postgresql://") || to.contains("=") else {
            throw AdminUsageError("--to must be a PostgreSQL connection string (postgres://... or host=... dbname=...)")
        }
        return (String(from.dropFirst("sqlite:".count)), to)
    }
}
