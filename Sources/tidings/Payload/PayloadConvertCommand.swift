import Foundation
import TidingsModel

/// `tidings payload convert`: a vendor's payload carried over to the native dialect, with what was left out
/// and why, and the round trip checked.
enum PayloadConvertCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try ArgumentList(arguments, options: ["from", "output"], flags: ["json", "strict"])
        guard options.positionals.count <= 1 else {
            throw CommandLineError.usage("payload convert reads one FILE; got \(options.positionals.count)")
        }
        let dialect = try options.option("from").map(parseDialect)
        let input = try PayloadInput.read(options.positionals.first)
        let conversion: PayloadConversion
        do {
            conversion = try PayloadConversion.convert(input.bytes, from: dialect)
        } catch {
            throw CommandLineError.usage("\(input.name): \(error.message)")
        }
        let nativeText = try serialized(conversion.native)
        if let output = options.option("output") {
            do {
                try Data(nativeText.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CommandLineError.failure("cannot write '\(output)': \(error.localizedDescription)")
            }
        }
        if options.flag("json") {
            Console.write(try serialized(json(conversion)))
        } else {
            if options.option("output") == nil { Console.write(nativeText) }
            Console.progress(report(conversion, source: input.name) + "\n")
        }
        return options.flag("strict") && !conversion.isLossless ? ExitCode.failure : ExitCode.success
    }

    /// `--json`: `{source_dialect, detected_dialect, payload, not_carried, round_trip}`, keys sorted.
    static func json(_ conversion: PayloadConversion) -> JSONValue {
        .object([
            "source_dialect": .string(conversion.sourceDialect.rawValue),
            "detected_dialect": .string(conversion.detectedDialect.rawValue),
            "payload": conversion.native,
            "lossless": .bool(conversion.isLossless),
            "not_carried": .array(
                conversion.notCarried.map {
                    .object([
                        "path": .string($0.path), "value": $0.value, "reason": .string($0.reason.rawValue),
                        "explanation": .string($0.reason.explanation),
                    ])
                }),
            "round_trip": .object([
                "exact": .bool(conversion.roundTripChanges.isEmpty),
                "changes": .array(
                    conversion.roundTripChanges.map {
                        .object(["field": .string($0.field), "before": $0.before, "after": $0.after])
                    }),
            ]),
        ])
    }

    /// What a person reads on standard error beside the payload.
    static func report(_ conversion: PayloadConversion, source: String) -> String {
        var lines = ["\(source): \(conversion.sourceDialect.rawValue) payload converted to native"]
        if conversion.sourceDialect != conversion.detectedDialect {
            lines.append(
                "  read as \(conversion.sourceDialect.rawValue) (--from); its keys say "
                    + conversion.detectedDialect.rawValue)
        }
        if conversion.notCarried.isEmpty {
            lines.append("  every key was carried over")
        } else {
            lines.append("  not carried over (\(conversion.notCarried.count)):")
            for entry in conversion.notCarried {
                lines.append("    \(entry.path) = \(shortJSON(entry.value)): \(entry.reason.explanation)")
            }
        }
        if conversion.roundTripChanges.isEmpty {
            lines.append("  round trip: exact (the native payload decodes to the same canonical payload)")
        } else {
            lines.append(
                "  round trip: the native format stores \(conversion.roundTripChanges.count) field(s) differently:")
            for change in conversion.roundTripChanges {
                lines.append("    \(change.field): \(shortJSON(change.before)) → \(shortJSON(change.after))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A value on one line, cut at 60 characters: the report names values, the payload carries them.
    private static func shortJSON(_ value: JSONValue) -> String {
        let text = (try? value.serializedString(sortedKeys: true)) ?? "?"
        return text.count > 60 ? text.prefix(59) + "…" : text
    }

    private static func parseDialect(_ name: String) throws -> PushDialect {
        guard let dialect = PushDialect(rawValue: name.lowercased()) else {
            let names = PushDialect.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandLineError.usage("--from '\(name)' is not a dialect; use one of: \(names)")
        }
        return dialect
    }

    private static func serialized(_ value: JSONValue) throws -> String {
        do {
            return try value.serializedString(sortedKeys: true, prettyPrinted: true) + "\n"
        } catch {
            throw CommandLineError.failure("cannot write JSON: \(error)")
        }
    }
}
