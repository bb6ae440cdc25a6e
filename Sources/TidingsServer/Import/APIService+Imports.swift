import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Bulk import (docs/migrating.md, "Devices and users: tidings import"): a file of installations, users, tags
/// and attributes, in a vendor's export format, sent in parts of whole rows.
///
/// Each part is checked row by row with the installation and tag routes' rules and written in one
/// transaction with the import's cursor: a part the server crashed in is written whole or not at all, and a
/// part sent again (same import id) skips the rows done.
extension APIService {
    /// The largest part, in bytes: within the HTTP server's body limit.
    static let maximumImportPartBytes = 1_048_576
    /// The most rows one part may hold.
    static let maximumImportPartRows = 10_000
    /// The longest row, in bytes.
    static let maximumImportRowBytes = 65_536

    func importRoutes() -> [HTTPRoute] {
        [
            // A part takes a few hundred milliseconds to check and commit: on a worker thread, not the network's.
            HTTPRoute.blocking("POST", "/v1/imports/{import_id}") { try self.postImportPart($0) },
            HTTPRoute.immediate("GET", "/v1/imports/{import_id}") { try self.getImport($0) },
        ]
    }

    /// `POST /v1/imports/{import_id}?profile=&format=&first_row=&dry_run=`: one part of an import file.
    func postImportPart(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let importID = try identifier(request, "import_id")
        let profile = try importProfile(request)
        let format = try importFormat(request, profile: profile)
        let firstRow = try importFirstRow(request)
        let dryRun = request.queryValue("dry_run") == "true"
        guard request.body.count <= Self.maximumImportPartBytes else {
            throw HTTPError(
                status: 413, code: "payload_too_large",
                message:
                    "an import part may be at most \(Self.maximumImportPartBytes) bytes; this one is \(request.body.count): send the file in parts of whole rows (tidings import does)"
            )
        }
        var records = ImportRecordSplitter(format: format).records(Array(request.body))
        var header: [String] = []
        if format == .csv {
            guard !records.isEmpty else {
                throw HTTPError(status: 400, code: "invalid_header", message: "a CSV part starts with its header row")
            }
            header = try csvHeader(records.removeFirst())
        } else if let first = records.first, first.first != UInt8(ascii: "{") {
            throw HTTPError(
                status: 400, code: "wrong_format",
                message: "the first line is not a JSON object: if the file is CSV, send it with format=csv")
        }
        guard records.count <= Self.maximumImportPartRows else {
            throw HTTPError(
                status: 413, code: "too_many_rows",
                message:
                    "an import part may hold at most \(Self.maximumImportPartRows) rows; this one holds \(records.count)"
            )
        }
        let mapper = ImportRowMapper(
            profile: profile, attributeLimits: configuration.attributeLimits, tagLimits: configuration.tagLimits)
        let erasureKey = try erasureKey(appID: caller.appID, creating: false)
        var rows: [ImportRow] = []
        var refused: [Int: ImportRowError] = [:]
        for (offset, record) in records.enumerated() {
            let number = firstRow + offset
            do {
                let source = try sourceRow(record, format: format, header: header)
                rows.append(
                    try mapper.row(source, number: number) { user in
                        erasureKey.map { Self.erasureDigest(user, key: $0) }
                    })
            } catch let error as ImportRowError {
                refused[number] = error
            }
        }
        let batch = ImportBatch(
            appID: caller.appID, importID: importID, profile: profile.name, firstRow: firstRow,
            rowCount: records.count, rows: rows, rejectedBeforeStore: refused.keys.sorted(),
            tagLimits: configuration.tagLimits, attributeLimits: configuration.attributeLimits, dryRun: dryRun,
            now: now)
        let result = try storeCall { try store.importBatch(batch) }
        return json(partAnswer(result, batch: batch, refused: refused, format: format))
    }

    /// `GET /v1/imports/{import_id}`: how far the import is, for resuming it.
    func getImport(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let importID = try identifier(request, "import_id")
        guard let progress = try store.importProgress(appID: caller.appID, importID: importID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no import \(importID)")
        }
        return json(Self.progressJSON(progress))
    }

    private func importProfile(_ request: HTTPRequest) throws -> any ImportProfile {
        let names = ImportProfiles.names.joined(separator: ", ")
        guard let name = request.queryValue("profile") else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "profile is required: one of \(names)")
        }
        guard let profile = ImportProfiles.named(name) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "profile '\(name.prefix(40))' is not one of \(names)")
        }
        return profile
    }

    /// `format`, or the one `Content-Type` names; the profile must read it.
    private func importFormat(_ request: HTTPRequest, profile: any ImportProfile) throws -> ImportFormat {
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        let named =
            request.queryValue("format")
            ?? ImportFormat.allCases.first { contentType.hasPrefix($0.mediaType) }?.rawValue
        guard let named, let format = ImportFormat(rawValue: named) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter", message: "format must be csv or ndjson")
        }
        guard profile.formats.contains(format) else {
            let read = profile.formats.map(\.rawValue).sorted().joined(separator: " or ")
            throw HTTPError(
                status: 400, code: "unsupported_format",
                message: "the \(profile.name) profile reads \(read), as the vendor exports it; not \(format.rawValue)")
        }
        return format
    }

    private func importFirstRow(_ request: HTTPRequest) throws -> Int {
        guard let text = request.queryValue("first_row") else { return 1 }
        guard let row = Int(text), row >= 1 else {
            throw HTTPError(
                status: 400, code: "invalid_parameter", message: "first_row must be a row number, 1 or more")
        }
        return row
    }

    private func csvHeader(_ record: ArraySlice<UInt8>) throws -> [String] {
        var bytes = record
        // A byte order mark some spreadsheets write.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.first == UInt8(ascii: "{") {
            throw HTTPError(
                status: 400, code: "wrong_format",
                message:
                    "the first line is a JSON object, not a CSV header: if the file is NDJSON, send it with format=ndjson"
            )
        }
        guard let columns = CSVRecord.fields(bytes), columns.allSatisfy({ !$0.isEmpty }),
            Set(columns).count == columns.count
        else {
            throw HTTPError(
                status: 400, code: "invalid_header",
                message: "the CSV header must name each column once, none empty")
        }
        return columns
    }

    private func sourceRow(_ record: ArraySlice<UInt8>, format: ImportFormat, header: [String]) throws(ImportRowError)
        -> ImportSourceRow
    {
        guard record.count <= Self.maximumImportRowBytes else {
            throw ImportRowError(
                column: "", rule: "row_too_large",
                message: "a row may be at most \(Self.maximumImportRowBytes) bytes; this one is \(record.count)")
        }
        switch format {
        case .csv:
            guard let fields = CSVRecord.fields(record), fields.count == header.count else {
                throw ImportRowError(
                    column: "", rule: "malformed_row",
                    message: "the row must be \(header.count) CSV fields, as the header names, with quotes closed")
            }
            var values: [String: JSONValue] = [:]
            for (column, field) in zip(header, fields) where !field.isEmpty { values[column] = .string(field) }
            return ImportSourceRow(values)
        case .ndjson:
            guard let object = try? JSONValue.parse(Array(record)).objectValue else {
                throw ImportRowError(column: "", rule: "malformed_row", message: "the line must be one JSON object")
            }
            return ImportSourceRow(object)
        }
    }

    private func partAnswer(
        _ result: ImportBatchResult, batch: ImportBatch, refused: [Int: ImportRowError], format: ImportFormat
    ) -> JSONValue {
        var counts = ["imported": 0, "updated": 0, "unchanged": 0, "rejected": 0]
        var errors: [(Int, ImportRowError)] = []
        for (number, outcome) in result.outcomes {
            switch outcome {
            case .imported: counts["imported", default: 0] += 1
            case .updated: counts["updated", default: 0] += 1
            case .unchanged: counts["unchanged", default: 0] += 1
            case .rejected(let column, let rule, let message):
                counts["rejected", default: 0] += 1
                errors.append((number, ImportRowError(column: column, rule: rule, message: message)))
            }
        }
        let done = batch.firstRow + result.skipped
        for (number, error) in refused where number >= done {
            counts["rejected", default: 0] += 1
            errors.append((number, error))
        }
        errors.sort { $0.0 < $1.0 }
        var answer: [String: JSONValue] = [
            "import_id": .string(batch.importID), "profile": .string(batch.profile),
            "format": .string(format.rawValue), "dry_run": .bool(batch.dryRun),
            "first_row": .integer(Int64(batch.firstRow)), "rows": .integer(Int64(batch.rowCount)),
            "skipped": .integer(Int64(result.skipped)),
            "errors": .array(
                errors.map { number, error in
                    .object([
                        "row": .integer(Int64(number)), "column": .string(error.column), "rule": .string(error.rule),
                        "message": .string(error.message),
                    ])
                }),
            "progress": Self.progressJSON(result.progress),
        ]
        for (name, count) in counts { answer[name] = .integer(Int64(count)) }
        return .object(answer)
    }

    static func progressJSON(_ progress: ImportProgress) -> JSONValue {
        .object([
            "import_id": .string(progress.importID), "profile": .string(progress.profile),
            "rows_done": .integer(Int64(progress.rowsDone)), "imported": .integer(Int64(progress.imported)),
            "updated": .integer(Int64(progress.updated)), "unchanged": .integer(Int64(progress.unchanged)),
            "rejected": .integer(Int64(progress.rejected)), "created_at": .integer(progress.createdAt),
            "updated_at": .integer(progress.updatedAt),
        ])
    }
}
