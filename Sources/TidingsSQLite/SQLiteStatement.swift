import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

// SQLite copies bound text and blobs when told the memory is transient; the macro does not import. Computed,
// as a global constant would be initialised lazily and checked at every bind.
private var transientDestructor: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
/// Where an empty string's text points: SQLite binds NULL for a null pointer, even with a length of 0.
private let emptyText: StaticString = ""

/// A prepared statement of one ``SQLiteConnection``.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    public let sql: String

    init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(
            connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else {
            throw SQLiteError(code: status, message: connection.lastErrorMessage, sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to the parameters `?1`, `?2`, ... in order.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let status: Int32
        switch value {
        case .null:
            status = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            status = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            status = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            return try bind(text: text, at: index)
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count),
                    transientDestructor)
            }
        }
        try checkBound(status)
    }

    /// Binds `text`, or NULL for nil, to the 1-based parameter `index`: the same as binding a ``SQLiteValue``,
    /// without wrapping and unwrapping the string, for a loop that binds hundreds of thousands a second.
    public func bind(text: String?, at index: Int32) throws(SQLiteError) {
        let status: Int32
        if let text {
            // The string's UTF-8 in place, with its length: passing the String itself makes Swift copy it into
            // a fresh C string (and SQLite measure it, stopping at a NUL) before SQLite makes its own copy.
            status =
                text.utf8.withContiguousStorageIfAvailable { bytes in
                    sqlite3_bind_text64(
                        handle, index,
                        UnsafeRawPointer(bytes.baseAddress ?? emptyText.utf8Start).assumingMemoryBound(to: CChar.self),
                        sqlite3_uint64(bytes.count), transientDestructor, UInt8(SQLITE_UTF8))
                }
                ?? sqlite3_bind_text64(
                    handle, index, text, sqlite3_uint64(text.utf8.count), transientDestructor, UInt8(SQLITE_UTF8))
        } else {
            status = sqlite3_bind_null(handle, index)
        }
        try checkBound(status)
    }

    /// Binds the UTF-8 `text`, or NULL for nil, to the 1-based parameter `index` without copying it
    /// (`SQLITE_STATIC`): SQLite reads the bytes when the statement runs, so they must stay valid and unchanged
    /// until the parameter is bound again or the bindings are cleared (``reset()``).
    public func bind(borrowedText text: UnsafeBufferPointer<UInt8>?, at index: Int32) throws(SQLiteError) {
        let status: Int32
        if let text {
            status = sqlite3_bind_text64(
                handle, index,
                UnsafeRawPointer(text.baseAddress ?? emptyText.utf8Start).assumingMemoryBound(to: CChar.self),
                sqlite3_uint64(text.count), nil, UInt8(SQLITE_UTF8))
        } else {
            status = sqlite3_bind_null(handle, index)
        }
        try checkBound(status)
    }

    /// Throws for a bind that SQLite refused (a parameter index out of range, text over its length limit).
    private func checkBound(_ status: Int32) throws(SQLiteError) {
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, message: connection.lastErrorMessage, sql: sql)
        }
    }

    /// Advances to the next row; false when the statement is done (and then it is reset, its bindings kept).
    ///
    /// The bindings stay so that a loop that binds every parameter for each run (an event batch) rebinds
    /// into the memory SQLite already holds instead of freeing and allocating it per value;
    /// ``SQLiteConnection/prepare(_:)`` clears them before anyone else uses the statement.
    public func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let message = connection.lastErrorMessage
            reset()
            throw SQLiteError(code: status, message: message, sql: sql)
        }
    }

    /// Makes the statement ready to run again and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    public func int(at column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    public func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text; empty for NULL.
    public func text(at column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column as text, or nil for NULL.
    public func optionalText(at column: Int32) -> String? {
        isNull(at: column) ? nil : text(at: column)
    }

    /// The column's bytes; empty for NULL.
    public func blob(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column as a typed value.
    public func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(int64(at: column))
        case SQLITE_FLOAT: .real(double(at: column))
        case SQLITE_TEXT: .text(text(at: column))
        case SQLITE_BLOB: .blob(blob(at: column))
        default: .null
        }
    }
}
