import Foundation
import Testing

@testable import TidingsModel

/// `EventBatchReader` must read exactly what `JSONValue.parse` then `TidingsEvent(json:)` read, and hand back
/// (an entry as its `JSONValue`, or the whole body as `nil`) whatever it does not read itself.
@Suite struct EventBatchReaderTests {
    static let plainEvent = #"""
        {"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"link_open","occurred_at":1764547200000,\#
        "installation_id":"inst-1","platform":"ios","sdk_version":"0.1.0","app_version":"1.0.0","message_id":"m-1",\#
        "campaign_id":"c-1","dialect":"native","source":"app","app_state":"foreground","value":"https://example.com/x"}
        """#

    /// What the general reading makes of one entry: the event and its compact size, or its error.
    enum GeneralReading: Equatable {
        case event(TidingsEvent, serializedBytes: Int)
        case refused(EventValidationError)
    }

    static func general(_ value: JSONValue) -> GeneralReading {
        do {
            return .event(try TidingsEvent(json: value), serializedBytes: JSONText.byteCount(value))
        } catch {
            return .refused(error)
        }
    }

    static func reading(_ element: EventBatchReader.Element) -> GeneralReading {
        switch element {
        case .event(let event, _, let serializedBytes): .event(event, serializedBytes: serializedBytes)
        case .value(let value): general(value)
        }
    }

    static func read(_ text: String, maximumEvents: Int = 500) -> [EventBatchReader.Element]? {
        EventBatchReader.read(Data(text.utf8), maximumEvents: maximumEvents)
    }

    /// The reader agrees with the general reading: when it reads the body, the body parses and every entry
    /// reads the same way (the same event and size, or the same error); when it hands the body back, fine.
    static func expectAgreement(
        _ body: [UInt8], maximumEvents: Int = 500, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let elements = EventBatchReader.read(Data(body), maximumEvents: maximumEvents) else { return }
        guard case .object(let object)? = try? JSONValue.parse(body), let entries = object["events"]?.arrayValue
        else {
            Issue.record("the reader read a body the general reading refuses", sourceLocation: sourceLocation)
            return
        }
        #expect(entries.count <= maximumEvents, sourceLocation: sourceLocation)
        #expect(elements.map(reading) == entries.map(general), sourceLocation: sourceLocation)
    }

    @Test func aPlainEventIsReadStraightFromTheBytesAsTheGeneralReadingReadsIt() throws {
        let elements = try #require(Self.read(#"{"events":[\#(Self.plainEvent),\#(Self.plainEvent)]}"#))
        #expect(elements.count == 2)
        guard case .event(let event, let rawID, let size) = elements[0] else {
            Issue.record("a plain event was left to the general reading")
            return
        }
        let value = try JSONValue.parse(Self.plainEvent)
        #expect(event == (try TidingsEvent(json: value)))
        #expect(size == JSONText.byteCount(value))
        #expect(rawID == "0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b")
        #expect(event.source == .app && event.appState == .foreground && event.platform == "ios")
    }

    @Test(arguments: [
        // Escapes and non-ASCII text, whose compact size differs from the bytes sent.
        #"{"event_id":"0193A1B2-C3D4-7E5F-8A6B-7C8D9E0F1A2B","type":"open","occurred_at":1,"installation_id":"i\"\u00e9\/\n","message_id":"日本"}"#,
        // Nulls, no platform (defaults to ios), attributes, and whitespace everywhere.
        " \t{ \"event_id\" : \"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b\" ,\r\n \"type\":\"media_failed\", \"occurred_at\": 5,"
            + #" "installation_id":"i","user_id":null,"attributes":{"reason":"timeout","n":[1,2.5,{"x":null}]}} "#,
        // A negative time (refused by validation later, not by reading).
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":-3,"installation_id":"i"}"#,
        // A button's action, with whether it opened the app.
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"action","occurred_at":1,"installation_id":"i","action_id":"buy","opens_app":true}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"action","occurred_at":1,"installation_id":"i","opens_app":false,"action_id":"no"}"#,
    ])
    func plainEventsOfEveryKindAgreeWithTheGeneralReading(_ event: String) throws {
        let body = "\u{FEFF}{\"other\":[1,{\"a\":true}],\"events\":[\(event)],\"more\":null}"
        let elements = try #require(Self.read(body))
        guard case .event = elements.first else {
            Issue.record("a plain event was left to the general reading")
            return
        }
        Self.expectAgreement(Array(body.utf8))
    }

    @Test(arguments: [
        // Unknown, repeated or escaped member names.
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":"i","future":1}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","type":"dismiss","occurred_at":1,"installation_id":"i"}"#,
        #"{"event\u005fid":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":"i"}"#,
        // Values of another type than the field's.
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":"1","installation_id":"i"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1.0,"installation_id":"i"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1e3,"installation_id":"i"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":7}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":"i","attributes":[]}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"action","occurred_at":1,"installation_id":"i","opens_app":"yes"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"action","occurred_at":1,"installation_id":"i","opens_app":1}"#,
        // Missing fields, ids and enumeration values that do not read.
        #"{"type":"open","occurred_at":1,"installation_id":"i"}"#,
        #"{"event_id":"not-a-uuid","type":"open","occurred_at":1,"installation_id":"i"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":"i","source":"mars"}"#,
        #"{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":null,"occurred_at":1,"installation_id":"i"}"#,
        // Not an object at all.
        "{}", "42", "\"text\"", "[]", "null",
    ])
    func entriesOfAnotherShapeAreLeftToTheGeneralReading(_ entry: String) throws {
        let body = #"{"events":[\#(Self.plainEvent),\#(entry)]}"#
        let elements = try #require(Self.read(body))
        #expect(elements.count == 2)
        guard case .value(let value) = elements[1] else {
            Issue.record("an entry of another shape was read as a plain event")
            return
        }
        #expect(value == (try JSONValue.parse(entry)))
        Self.expectAgreement(Array(body.utf8))
    }

    @Test(arguments: [
        "", " ", "[]", "{}", #"{"events":{}}"#, #"{"events":null}"#, #"{"batch":[]}"#,
        #"{"events":[]} x"#, #"{"events":[],}"#, #"{"events":[1,]}"#, #"{"events":[1 2]}"#,
        #"{"events":[],"events":[]}"#,
        #"{"events":["\#u{01}"]}"#, "{\"events\":[{\"type\":\"\\q\"}]}", #"{"events":[{"type":"\ud800"}]}"#,
        #"{"events":[{"occurred_at":01}]}"#, #"{"events":[{"occurred_at":-}]}"#, #"{"events":[{"type":nul}]}"#,
        #"{events:[]}"#, #"{"events" []}"#,
    ])
    func malformedBodiesAreLeftToTheGeneralReadingWhichNamesTheError(_ body: String) {
        #expect(Self.read(body) == nil)
    }

    @Test func invalidUTF8InAStringIsLeftToTheGeneralReading() {
        var body = Array(
            #"{"events":[{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"installation_id":"#
                .utf8)
        body += [UInt8(ascii: "\""), 0xC0, 0xAF, UInt8(ascii: "\"")] + Array("}]}".utf8)
        #expect(EventBatchReader.read(Data(body), maximumEvents: 500) == nil)
        #expect((try? JSONValue.parse(body)) == nil)
    }

    @Test func moreEventsThanTheLimitAreLeftToTheGeneralReadingWhichAnswers413() throws {
        let three = #"{"events":[\#(Self.plainEvent),\#(Self.plainEvent),\#(Self.plainEvent)]}"#
        #expect(Self.read(three, maximumEvents: 2) == nil)
        #expect(try #require(Self.read(three, maximumEvents: 3)).count == 3)
        #expect(try #require(Self.read(#"{"events":[]}"#, maximumEvents: 0)).isEmpty)
    }

    @Test func nestingIsLimitedAsTheGeneralReadingLimitsIt() {
        let depth = JSONParser.Options().maximumDepth
        func body(attributesDepth: Int) -> String {
            // The top-level object, the array and the event take three levels; attributes one more each.
            let open = String(repeating: #"{"a":"#, count: attributesDepth - 1) + "{}"
            let close = String(repeating: "}", count: attributesDepth - 1)
            return #"{"events":[{"event_id":"0193a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","type":"open","occurred_at":1,"#
                + #""installation_id":"i","attributes":\#(open)\#(close)}]}"#
        }
        let deepest = body(attributesDepth: depth - 3)
        #expect((try? JSONValue.parse(deepest)) != nil)
        #expect(Self.read(deepest)?.count == 1)
        let tooDeep = body(attributesDepth: depth - 2)
        #expect((try? JSONValue.parse(tooDeep)) == nil)
        #expect(Self.read(tooDeep) == nil)
    }

    @Test func everyTruncationOfABatchIsLeftToTheGeneralReading() {
        let body = Array(#"{"events":[\#(Self.plainEvent),{"type":"x"},3]}"#.utf8)
        for length in 0..<body.count {
            #expect(EventBatchReader.read(Data(body[..<length]), maximumEvents: 500) == nil, "at \(length) bytes")
        }
        #expect(EventBatchReader.read(Data(body), maximumEvents: 500)?.count == 3)
    }

    @Test func damagedBatchesNeverReadDifferentlyFromTheGeneralReading() {
        let body = Array(
            #"{"events":[\#(Self.plainEvent),{"event_id":"x","type":"open","attributes":{"k":[1,"\u00e9"]}}]}"#.utf8)
        var generator = SeededGenerator(seed: 18)
        let alphabet = Array(#"{}[]":,\ "0123456789.-eEnulltruefalsx"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xA9, 0xFF]
        for _ in 0..<3000 {
            var damaged = body
            for _ in 0...Int(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(damaged.count))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0: damaged[position] = byte
                case 1: damaged.insert(byte, at: position)
                default: damaged.remove(at: position)
                }
            }
            Self.expectAgreement(damaged)
        }
    }
}
