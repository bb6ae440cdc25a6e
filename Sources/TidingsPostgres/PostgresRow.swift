import CLibPQ

/// One row of a result in PostgreSQL's binary format, read by column index; valid only inside the row
/// closure it is passed to.
struct PostgresRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int32) -> Bool { PQgetisnull(result, row, column) == 1 }

    private func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let length = Int(PQgetlength(result, row, column))
        guard let value = PQgetvalue(result, row, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeRawPointer(value).withMemoryRebound(to: UInt8.self, capacity: length) {
            UnsafeBufferPointer(start: $0, count: length)
        }
    }

    func text(_ column: Int32) -> String { String(decoding: bytes(column), as: UTF8.self) }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// A `jsonb` column's JSON text: the binary format is a version byte (1) before the text.
    func optionalJSONB(_ column: Int32) -> String? {
        guard !isNull(column) else { return nil }
        let raw = bytes(column)
        return String(decoding: raw.first == 1 ? raw.dropFirst() : raw[...], as: UTF8.self)
    }

    /// An `int2`, `int4` or `int8` column (big-endian in the binary format).
    func int64(_ column: Int32) -> Int64 {
        var value: Int64 = 0
        let raw = bytes(column)
        for byte in raw { value = value << 8 | Int64(byte) }
        // Sign-extend the narrower integer types.
        let width = raw.count * 8
        if width > 0 && width < 64 { value = (value << (64 - width)) >> (64 - width) }
        return value
    }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func int(_ column: Int32) -> Int { Int(int64(column)) }

    func bool(_ column: Int32) -> Bool { bytes(column).first.map { $0 != 0 } ?? false }
    func optionalBool(_ column: Int32) -> Bool? { isNull(column) ? nil : bool(column) }

    func blob(_ column: Int32) -> [UInt8] { Array(bytes(column)) }
    func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}
