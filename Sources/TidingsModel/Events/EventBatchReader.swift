import Foundation

/// Reads the body of `POST /v1/events` straight from its bytes into events, without building a `JSONValue`
/// dictionary for each event and reading the event back out of it.
///
/// ```
/// if let elements = EventBatchReader.read(body, maximumEvents: 500) {
///     // one element per entry of "events": a read event, or the entry's JSONValue
/// } else {
///     // read the body the general way (JSONValue.parse, then TidingsEvent(json:)) for its exact error
/// }
/// ```
///
/// It reads the common shape itself: an object whose members are the event's own fields, each once, with
/// strings (or `null`) for the text fields, an integer `occurred_at`, an object `attributes`, and an id and
/// enumeration values that read. Anything else it hands back rather than judging it, so every answer stays
/// exactly what the general reading gives:
/// - an entry of another shape (an unknown or repeated member, a value of another type, an id or an
///   enumeration value that does not read, not an object at all) comes back as its ``JSONValue``, read by
///   the shared parser, for ``TidingsEvent/init(json:)`` to read or refuse with its usual error;
/// - a body that is not valid JSON, not an object with one `events` array, or that has more than
///   `maximumEvents` entries comes back `nil`, for the caller to read the general way, which names the
///   error as before.
///
/// The size it reports for an event is the one `JSONText.byteCount` gives for the event's `JSONValue` (the
/// event written compactly), so the per-event size limit applies to the same figure either way.
public struct EventBatchReader {
    /// One entry of the batch's `events` array.
    public enum Element: Equatable {
        /// An event read straight from the bytes, with its `event_id` as sent (for a receipt when the event
        /// is refused) and the size of the event written compactly.
        case event(TidingsEvent, rawEventID: String, serializedBytes: Int)
        /// An entry the reader left to the general reading.
        case value(JSONValue)
    }

    /// How deep the shared parser lets a document nest (`JSONParser.Options().maximumDepth`); a value read
    /// on its own at nesting level `n` may nest `documentDepth - n` deeper, as it could inside the document.
    private static let documentDepth = JSONParser.Options().maximumDepth

    private var scanner: JSONScanner

    private init(bytes: UnsafePointer<UInt8>, count: Int) {
        scanner = JSONScanner(bytes: bytes, count: count, maximumDepth: Self.documentDepth)
    }

    /// The entries of `{"events":[...]}`, or `nil` when the body is to be read the general way (see above).
    public static func read(_ body: Data, maximumEvents: Int) -> [Element]? {
        body.withUnsafeBytes { raw -> [Element]? in
            guard let base = raw.baseAddress, raw.count > 0 else { return nil }
            var reader = EventBatchReader(bytes: base.assumingMemoryBound(to: UInt8.self), count: raw.count)
            return try? reader.readBatch(maximumEvents: maximumEvents)
        }
    }

    // MARK: - The batch

    private mutating func readBatch(maximumEvents: Int) throws -> [Element]? {
        if scanner.count >= 3 && scanner.bytes[0] == 0xEF && scanner.bytes[1] == 0xBB && scanner.bytes[2] == 0xBF {
            scanner.index = 3
        }
        scanner.skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        scanner.skipWhitespace()
        var elements: [Element]?
        while true {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let key = try scanner.parseString()
            guard try takeColon() else { return nil }
            if key == "events" {
                // A repeated "events" member: the general reading keeps the last one; leave it to that.
                guard elements == nil, peek == UInt8(ascii: "[") else { return nil }
                guard let read = try readEvents(maximumEvents: maximumEvents) else { return nil }
                elements = read
            } else {
                _ = try readValue(level: 2)
            }
            guard let another = takeMemberEnd() else { return nil }
            if !another { break }
        }
        scanner.skipWhitespace()
        guard scanner.index == scanner.count else { return nil }
        return elements
    }

    /// What follows an object's member: `true` for a comma (taken, with the whitespace after it), `false` for
    /// the closing brace (taken), `nil` for anything else.
    private mutating func takeMemberEnd() -> Bool? {
        scanner.skipWhitespace()
        if take(UInt8(ascii: ",")) {
            scanner.skipWhitespace()
            return true
        }
        return take(UInt8(ascii: "}")) ? false : nil
    }

    /// The entries of the array at `index`, or `nil` past `maximumEvents`.
    private mutating func readEvents(maximumEvents: Int) throws -> [Element]? {
        scanner.index += 1
        scanner.skipWhitespace()
        var elements: [Element] = []
        if take(UInt8(ascii: "]")) { return elements }
        elements.reserveCapacity(min(maximumEvents, 512))
        while true {
            guard elements.count < maximumEvents else { return nil }
            scanner.skipWhitespace()
            let start = scanner.index
            if peek == UInt8(ascii: "{"), let event = try? readEvent() {
                elements.append(event)
            } else {
                scanner.index = start
                elements.append(.value(try readValue(level: 3)))
            }
            scanner.skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")) else { return nil }
            return elements
        }
    }

    /// Any value at `index` through the shared parser, as it would read it at nesting level `level` of the
    /// document (the top-level object is level 1).
    private mutating func readValue(level: Int) throws -> JSONValue {
        let start = scanner.index
        var nested = JSONScanner(
            bytes: scanner.bytes + start, count: scanner.count - start,
            maximumDepth: max(0, Self.documentDepth - (level - 1)))
        let value = try nested.parseValue()
        scanner.index = start + nested.index
        return value
    }

    // MARK: - One event

    /// The event object at `index`, or `nil` when it is not of the plain shape (the caller then reads it as
    /// a `JSONValue` from the same place).
    private mutating func readEvent() throws -> Element? {
        scanner.index += 1
        scanner.skipWhitespace()
        var fields = EventFields()
        var seen: UInt32 = 0
        var members = 0
        // `{}` and the commas between members, then each member's `"key":value` below.
        var serializedBytes = 2
        while true {
            guard take(UInt8(ascii: "\"")) else { return nil }
            guard let field = readFieldName() else { return nil }
            let bit: UInt32 = 1 << field.rawValue
            guard seen & bit == 0 else { return nil }
            seen |= bit
            members += 1
            serializedBytes += field.nameByteCount + 3
            guard try takeColon() else { return nil }
            guard let valueBytes = try readFieldValue(field, into: &fields) else { return nil }
            serializedBytes += valueBytes
            guard let another = takeMemberEnd() else { return nil }
            if !another { break }
        }
        serializedBytes += members - 1
        guard let element = fields.element(serializedBytes: serializedBytes) else { return nil }
        return element
    }

    /// The event field named by the key at `index` (its opening quote taken), and the closing quote; `nil`
    /// for a key that is not one, or that has escapes or non-ASCII bytes (none of the names do).
    private mutating func readFieldName() -> EventField? {
        let start = scanner.index
        while scanner.index < scanner.count {
            let byte = scanner.bytes[scanner.index]
            if byte == UInt8(ascii: "\"") {
                let field = EventField.named(scanner.bytes + start, count: scanner.index - start)
                scanner.index += 1
                return field
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            scanner.index += 1
        }
        return nil
    }

    /// Reads the value of `field` into `fields` and returns its size written compactly, or `nil` when the
    /// value is not of the field's plain type.
    private mutating func readFieldValue(_ field: EventField, into fields: inout EventFields) throws -> Int? {
        guard let byte = peek else { return nil }
        if byte == UInt8(ascii: "n") {
            guard scanner.count - scanner.index >= 4, scanner.bytes[scanner.index + 1] == UInt8(ascii: "u"),
                scanner.bytes[scanner.index + 2] == UInt8(ascii: "l"),
                scanner.bytes[scanner.index + 3] == UInt8(ascii: "l")
            else { return nil }
            scanner.index += 4
            return 4
        }
        switch field {
        case .occurredAt:
            let start = scanner.index
            guard byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")),
                case .integer(let milliseconds) = try scanner.parseNumber()
            else { return nil }
            fields.occurredAt = milliseconds
            // An integer is read only from plain digits, which is how it is written again.
            return scanner.index - start
        case .attributes:
            guard byte == UInt8(ascii: "{"), case .object(let object) = try readValue(level: 4) else { return nil }
            fields.attributes = object
            return JSONText.byteCount(.object(object))
        case .opensApp:
            guard byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f"),
                case .bool(let value) = try readValue(level: 4)
            else { return nil }
            fields.opensApp = value
            return value ? 4 : 5
        default:
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = scanner.index
            let text = try scanner.parseString()
            fields.strings[field.rawValue] = text
            // Every escape is longer than what it stands for, so equal lengths mean none: the text is written
            // back byte for byte between its quotes. Otherwise count it as the writer escapes it.
            let written = scanner.index - 1 - start
            return written == text.utf8.count ? written + 2 : JSONText.byteCount(.string(text))
        }
    }

    // MARK: - Bytes

    private var peek: UInt8? {
        scanner.index < scanner.count ? scanner.bytes[scanner.index] : nil
    }

    /// Takes `byte` when it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard scanner.index < scanner.count, scanner.bytes[scanner.index] == byte else { return false }
        scanner.index += 1
        return true
    }

    /// Takes the `:` after a key, with whitespace either side.
    private mutating func takeColon() throws -> Bool {
        scanner.skipWhitespace()
        guard take(UInt8(ascii: ":")) else { return false }
        scanner.skipWhitespace()
        return true
    }
}
