#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

extension SQLiteConnection {
    /// Makes `name(text)` callable from this connection's SQL: NULL in, NULL out; otherwise `transform`'s
    /// result for the text's UTF-8 bytes (as UTF-8 bytes), NULL when it returns nil.
    ///
    /// The function is declared deterministic (the same input always gives the same output), so SQLite may
    /// compute it once per row and use it in `WHERE` clauses freely. It sees the bytes SQLite holds, without a
    /// `String` made per call: it runs once per row scanned.
    /// - Important: Only this connection knows the function; every connection that runs SQL calling it must
    ///   register it first.
    public func addTextFunction(
        named name: String, _ transform: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> [UInt8]?
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(TextFunctionBox(transform)).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                guard let context, let user = sqlite3_user_data(context) else { return }
                guard count == 1, let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL,
                    let bytes = sqlite3_value_text(argument)
                else {
                    sqlite3_result_null(context)
                    return
                }
                let input = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(argument)))
                let function = Unmanaged<TextFunctionBox>.fromOpaque(user).takeUnretainedValue()
                guard let output = function.transform(input) else {
                    sqlite3_result_null(context)
                    return
                }
                output.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress.map { base in
                        base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                            sqlite3_result_text(
                                context, text, Int32(buffer.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                        }
                    } ?? sqlite3_result_text(context, "", 0, nil)
                }
            }, nil, nil,
            { user in
                guard let user else { return }
                Unmanaged<TextFunctionBox>.fromOpaque(user).release()
            })
        // On failure SQLite has already called the destructor, which released the box.
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, message: "cannot add the SQL function \(name): \(lastErrorMessage)")
        }
    }
}

/// Keeps a registered function's closure alive for as long as SQLite holds it (released by its destructor).
private final class TextFunctionBox {
    let transform: @Sendable (UnsafeBufferPointer<UInt8>) -> [UInt8]?

    init(_ transform: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> [UInt8]?) {
        self.transform = transform
    }
}
