import Foundation
import TidingsModel

/// `tidings payload inspect|lint|rules|convert`: decode a push payload of any dialect, show it, and lint it.
enum PayloadCommand {
    static let usage = """
        usage: tidings payload inspect [FILE|-] [--json] [--voip] [--now TIME]
               tidings payload lint [FILE|-] [--json] [--voip] [--now TIME] [--strict]
               tidings payload rules [--json]
               tidings payload convert [FILE|-] [--from DIALECT] [--output FILE] [--json] [--strict]

        Reads a push payload (the JSON an app receives, in any dialect: Tidings, MoEngage, Treasure Data,
        NHN Cloud, Braze, FCM or plain APNs) from FILE, or from standard input for '-' or no FILE.

          inspect   show the decoded payload, its lint findings and its size; exits 0 when it decodes
          lint      show only the findings; exits 1 when one is an error, 0 otherwise
          rules     list every lint rule: code, severity and what it looks for
          convert   write the payload in the native dialect (standard output, or --output FILE) and list on
                    standard error what was not carried over and why, and what the native format stores
                    differently (the round trip is checked); --from reads it as that dialect whatever its
                    keys say; --strict exits 1 unless the conversion is lossless (docs/migrating.md)

        options:
          --json        one JSON object on standard output, keys sorted
          --voip        check the size against the VoIP limit (5120 bytes instead of 4096)
          --now TIME    the time expiry checks compare against: Unix seconds or ISO 8601 (default: now)
          --strict      lint: exit 1 on warnings too, not only on errors (for CI)

        Unreadable input (missing file, empty, not JSON, not an object, invalid UTF-8) exits 2 with one line
        on standard error. The lint rules are listed in docs/lint-rules.md.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage(
                "payload needs a subcommand: inspect, lint, rules or convert; run 'tidings payload --help'")
        }
        if ["--help", "-h", "help"].contains(subcommand) || arguments.dropFirst().contains("--help") {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        if subcommand == "rules" {
            let options = try ArgumentList(Array(arguments.dropFirst()), flags: ["json"])
            guard options.positionals.isEmpty else { throw CommandLineError.usage("payload rules takes no FILE") }
            Console.write(options.flag("json") ? try render(rulesJSON()) : rulesText())
            return ExitCode.success
        }
        if subcommand == "convert" { return try PayloadConvertCommand.run(Array(arguments.dropFirst())) }
        guard subcommand == "inspect" || subcommand == "lint" else {
            throw CommandLineError.usage("unknown payload subcommand '\(subcommand)'; run 'tidings payload --help'")
        }
        let options = try ArgumentList(
            Array(arguments.dropFirst()), options: ["now"], flags: ["json", "voip", "strict"])
        guard options.positionals.count <= 1 else {
            throw CommandLineError.usage("payload \(subcommand) reads one FILE; got \(options.positionals.count)")
        }
        let now = try options.option("now").map(parseTime) ?? Date()
        let input = try PayloadInput.read(options.positionals.first)

        let report: PayloadReport
        do {
            report = try PayloadReport.analyze(input.bytes, now: now, isVoIP: options.flag("voip"))
        } catch {
            throw CommandLineError.usage("\(input.name): \(oneLine(error.message))")
        }

        if subcommand == "inspect" {
            Console.write(
                options.flag("json") ? try render(report.json) : PayloadTextRenderer.inspect(report))
            return ExitCode.success
        }
        let failing: Set<PayloadWarning.Severity> = options.flag("strict") ? [.error, .warning] : [.error]
        let passes = !report.warnings.contains { failing.contains($0.severity) }
        Console.write(
            options.flag("json")
                ? try render(lintJSON(report, source: input.name, passes: passes))
                : PayloadTextRenderer.lint(report, source: input.name))
        return passes ? ExitCode.success : ExitCode.failure
    }

    /// `tidings payload lint --json`: the findings, their counts and the facts they were judged on.
    /// `ok` is whether the command exits 0 (no error; with `--strict`, no warning either).
    static func lintJSON(_ report: PayloadReport, source: String, passes: Bool) -> JSONValue {
        .object([
            "source": .string(source),
            "dialect": .string(report.payload.dialect.rawValue),
            "kind": .string(report.payload.kind.rawValue),
            "size_bytes": .integer(Int64(report.sizeInBytes)),
            "compact_size_bytes": report.compactSizeInBytes.map { .integer(Int64($0)) } ?? .null,
            "size_limit": .integer(Int64(report.sizeLimit)),
            "ok": .bool(passes),
            "counts": .object(
                Dictionary(
                    uniqueKeysWithValues: PayloadWarning.Severity.allCases.map {
                        ($0.rawValue, JSONValue.integer(Int64(report.count(of: $0))))
                    })),
            "warnings": .array(report.warnings.map(PayloadReport.warning)),
        ])
    }

    /// `tidings payload rules --json`: `[{code, severity, summary}]` in catalog order.
    static func rulesJSON() -> JSONValue {
        .array(
            PayloadLintRule.catalog.map { rule in
                .object([
                    "code": .string(rule.code.rawValue), "severity": .string(rule.severity.rawValue),
                    "summary": .string(rule.summary),
                ])
            })
    }

    static func rulesText() -> String {
        let width = PayloadLintRule.catalog.map(\.code.rawValue.count).max() ?? 0
        return PayloadLintRule.catalog.map { rule in
            let code = rule.code.rawValue + String(repeating: " ", count: width - rule.code.rawValue.count)
            let severity = rule.severity.rawValue + String(repeating: " ", count: 7 - rule.severity.rawValue.count)
            return "\(code)  \(severity)  \(rule.summary)\n"
        }.joined()
    }

    private static func render(_ value: JSONValue) throws -> String {
        do {
            return try value.serializedString(sortedKeys: true, prettyPrinted: true) + "\n"
        } catch {
            throw CommandLineError.failure("cannot write JSON: \(error)")
        }
    }

    /// Unix seconds (`1767225600`, `1767225600.5`) or ISO 8601 (`2026-01-01T00:00:00Z`).
    private static func parseTime(_ text: String) throws -> Date {
        if let seconds = Double(text), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw CommandLineError.usage("--now '\(text)' is neither Unix seconds nor an ISO 8601 time")
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
