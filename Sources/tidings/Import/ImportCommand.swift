import Foundation
import TidingsCrypto
import TidingsModel
import TidingsServer

/// `tidings import FILE --profile NAME`: installations, users, tags and attributes from a vendor's export,
/// sent to tidingsd in parts of whole rows (`POST /v1/imports/{import_id}`), resumable.
enum ImportCommand {
    static let usage = """
        usage: tidings import FILE --profile NAME [--format csv|ndjson] [--dry-run] [--report FILE]
                              [--import-id ID] [--json]

        Imports the devices and users of FILE, a vendor's export, into the app of the server key:
          profiles: native, onesignal, moengage, braze, nhncloud, treasuredata, fcm (docs/migrating.md)
        The format is the file's extension (.csv, .ndjson, .jsonl) unless --format says it.

        The file is read and sent a part at a time (at most \(maximumPartRows) rows, \(maximumPartBytes / 1024) KiB),
        each written in one transaction with the import's cursor. The import id is derived from the file
        and the profile, so running the same command again resumes where a crash or interrupt stopped it,
        or, when it finished, does nothing; --import-id ID names another import (the same file again:
        every row is then counted unchanged).

        --dry-run    checks every row against the server's rules and store, writes nothing
        --report F   every refused row as NDJSON ({"row","column","rule","message"}); by default
                     FILE.errors.ndjson, written only when rows are refused

        Exit status: 0 when every row was imported, 1 when some were refused (see the report), 2 usage,
        3 no server answered.

        \(ServerConnection.usage)
        """

    static let maximumPartRows = 5000
    static let maximumPartBytes = 512 * 1024
    /// A longer row is sent as a placeholder the server refuses as `row_too_large`, so the numbering holds.
    static let maximumRowBytes = 65_536

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(["profile", "format", "report", "import-id"]),
            flags: ["json", "dry-run"])
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CommandLineError.usage("import: give one FILE; run 'tidings import --help'")
        }
        guard let profile = arguments.option("profile") else {
            throw CommandLineError.usage("import: --profile is required (native, onesignal, moengage, braze, ...)")
        }
        let format: ImportFormat
        if let named = arguments.option("format") {
            guard let parsed = ImportFormat(rawValue: named) else {
                throw CommandLineError.usage("import: --format must be csv or ndjson")
            }
            format = parsed
        } else if let inferred = ImportFormat(fileName: path) {
            format = inferred
        } else {
            throw CommandLineError.usage("import: say --format csv or ndjson: \(path) has neither extension")
        }
        let importID = try arguments.option("import-id") ?? derivedImportID(path: path, profile: profile)
        let run = ImportRun(
            client: try ServerClient(arguments: arguments), path: path, profile: profile, format: format,
            importID: importID, dryRun: arguments.flag("dry-run"),
            reportPath: arguments.option("report") ?? path + ".errors.ndjson")
        let summary = try await run.run()
        if arguments.flag("json") {
            try Console.writeJSON(summary.json)
        } else {
            Console.write(summary.text + "\n")
        }
        return summary.rejected > 0 ? ExitCode.failure : ExitCode.success
    }

    /// `f` and 32 hex digits of a digest of the profile and the file's bytes (a digest of each megabyte's
    /// digest, read once): the same file and profile always name the same import.
    static func derivedImportID(path: String, profile: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandLineError.usage("import: cannot read \(path)")
        }
        defer { try? handle.close() }
        var digests = Array(profile.utf8) + [0]
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            digests += SHA256Digest.hash(chunk)
        }
        return "f" + SHA256Digest.hash(digests).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
