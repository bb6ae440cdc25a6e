import Foundation
import TidingsModel
import TidingsServer

/// One run of `tidings import`: asks where the import stands, skips the rows done, sends the rest in parts,
/// writes the refused rows to the report, and shows progress with its rate.
struct ImportRun {
    let client: ServerClient
    let path: String
    let profile: String
    let format: ImportFormat
    let importID: String
    let dryRun: Bool
    let reportPath: String
    /// How many refusals the summary shows.
    static let shownErrors = 10

    func run() async throws -> ImportSummary {
        let reader = try ImportFileReader(path: path, format: format)
        var header: [UInt8] = []
        if format == .csv {
            guard let first = try reader.next() else { throw CommandLineError.failure("import: \(path) is empty") }
            header = first + [UInt8(ascii: "\n")]
        }
        let done = dryRun ? 0 : try await rowsDone()
        if done > 0 { Console.progress(line: "import \(importID): rows 1 to \(done) were done by an earlier run") }
        var summary = ImportSummary(importID: importID, profile: profile, dryRun: dryRun)
        summary.skipped = done
        var report: FileHandle?
        defer { try? report?.close() }
        let progress = ProgressLine()
        let started = Date()
        var row = 0
        var part: [UInt8] = header
        var partRows = 0
        var firstRow = done + 1
        func send() async throws {
            guard partRows > 0 else { return }
            let answer = try await sendPart(part, firstRow: firstRow)
            summary.add(answer)
            for error in answer["errors"]?.arrayValue ?? [] {
                if summary.firstErrors.count < Self.shownErrors { summary.firstErrors.append(error) }
                if report == nil {
                    _ = FileManager.default.createFile(atPath: reportPath, contents: nil)
                    report = FileHandle(forWritingAtPath: reportPath)
                    summary.reportPath = reportPath
                }
                report?.write(Data((try error.serialized()) + [UInt8(ascii: "\n")]))
            }
            firstRow += partRows
            part = header
            partRows = 0
            summary.seconds = Date().timeIntervalSince(started)
            progress.update(
                done: reader.bytesRead, total: max(reader.size, 1),
                detail: "\(firstRow - 1) rows  \(summary.rate) rows/s  rejected \(summary.rejected)")
        }
        while let record = try reader.next() {
            row += 1
            if row <= done { continue }
            let bytes =
                record.count > ImportCommand.maximumRowBytes
                ? Array(repeating: UInt8(ascii: "x"), count: ImportCommand.maximumRowBytes + 1) : record
            if partRows > 0, part.count + bytes.count + 1 > ImportCommand.maximumPartBytes {
                try await send()
            }
            part += bytes
            part.append(UInt8(ascii: "\n"))
            partRows += 1
            if partRows == ImportCommand.maximumPartRows { try await send() }
        }
        try await send()
        progress.finish()
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// How many rows the import has done; 0 when it never started.
    private func rowsDone() async throws -> Int {
        do {
            let progress = try await client.json("GET", ["v1", "imports", importID])
            return progress["rows_done"]?.integerValue.map(Int.init) ?? 0
        } catch {
            if case .refused(let status, _, _) = error.reason, status == 404 { return 0 }
            throw error
        }
    }

    private func sendPart(_ part: [UInt8], firstRow: Int) async throws -> JSONValue {
        let response = try await client.send(
            "POST", ["v1", "imports", importID],
            query: [
                ("profile", profile), ("format", format.rawValue), ("first_row", String(firstRow)),
                ("dry_run", dryRun ? "true" : nil),
            ],
            raw: (part, format.mediaType), accept: "application/json")
        do {
            return try JSONValue.parse(response.body)
        } catch {
            throw CommandLineError.failure("import: the server answered a part with something else than JSON")
        }
    }
}
