import TidingsModel
import TidingsSQLite

/// The text parameters of a batch of events for `SQLiteStore`'s insert, laid out in one buffer by the caller's
/// thread, so that the single writer binds each in place instead of having SQLite copy it.
///
/// Bound from a Swift `String`, a text is copied by SQLite into memory of its own (`SQLITE_TRANSIENT`):
/// twenty-one copies per event, with a retain and release of each string and the memory grown or freed when a
/// field's length changes, all on the writer, which every batch waits for. The buffer holds the same bytes,
/// made once on the thread that parsed the batch; the writer binds them without a copy (`SQLITE_STATIC`)
/// while it holds the buffer.
struct EventInsertText: Sendable {
    /// The insert's text parameters, in the order each event's fields are laid out.
    static let parameters: [Int32] = [2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]

    private var bytes: [UInt8] = []
    /// For event `e` and its `p`th text parameter, at `2 * (e * parameters.count + p)`: where the field starts
    /// in `bytes` and its length, or a length of -1 for NULL.
    private var fields: [Int32] = []

    init(_ events: [TidingsEvent]) {
        fields.reserveCapacity(events.count * Self.parameters.count * 2)
        bytes.reserveCapacity(events.count * 256)
        for event in events {
            append(event.eventID.lowercasedString)
            append(event.type.rawValue)
            append(event.installationID)
            append(event.platform)
            append(event.sdkVersion)
            append(event.appVersion)
            append(event.osVersion)
            append(event.deviceModel)
            append(event.userID)
            append(event.messageID)
            append(event.campaignID)
            append(event.dialect)
            append(event.source?.rawValue)
            append(event.appState?.rawValue)
            append(event.actionID)
            append(event.value)
            append(event.token)
            append(event.tokenType?.rawValue)
            append(event.environment)
            append(event.permission)
            append(event.attributes.map { JSONText.string(.object($0)) })
        }
    }

    private mutating func append(_ text: String?) {
        guard let text else {
            fields.append(0)
            fields.append(-1)
            return
        }
        fields.append(Int32(bytes.count))
        bytes.append(contentsOf: text.utf8)
        fields.append(Int32(bytes.count) - fields[fields.count - 1])
    }

    /// Calls `body` with a binder of event `index`'s text parameters to a statement, valid only during the call.
    /// The statement must have its bindings cleared or replaced before `body` returns, as SQLite keeps the
    /// pointers it was given.
    func withBinder<Result>(_ body: (Binder) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { buffer in
            try fields.withUnsafeBufferPointer { fields in try body(Binder(bytes: buffer, fields: fields)) }
        }
    }

    struct Binder {
        fileprivate let bytes: UnsafeBufferPointer<UInt8>
        fileprivate let fields: UnsafeBufferPointer<Int32>

        /// Binds event `index`'s text parameters to `statement`, borrowing the buffer's bytes.
        func bind(event index: Int, to statement: SQLiteStatement) throws(SQLiteError) {
            var field = 2 * index * EventInsertText.parameters.count
            for parameter in EventInsertText.parameters {
                let (start, length) = (Int(fields[field]), Int(fields[field + 1]))
                field += 2
                try statement.bind(
                    borrowedText: length < 0 ? nil : UnsafeBufferPointer(rebasing: bytes[start..<start + length]),
                    at: parameter)
            }
        }
    }
}
