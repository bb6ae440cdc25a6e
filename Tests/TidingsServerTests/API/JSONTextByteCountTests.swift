import Foundation
import Testing
import TidingsModel

@testable import TidingsServer

/// The size check of `POST /v1/events` measures each event without writing it; it must agree with the writer.
@Suite struct JSONTextByteCountTests {
    @Test(arguments: [
        JSONValue.string("plain"), .string("quote \" and backslash \\"), .string("lines\n\r\ttabs"),
        .string("control \u{01}\u{1F} bytes"), .string("日本語と絵文字 🎉"), .string(""),
        ["event_id": "0193a7b2-0000-7000-8000-000000000001", "value": "https://example.com/x?q=\"1\"", "n": 42],
        [1, 2.5, true, false, nil, ["nested": ["deeper": "\u{7F}"]]],
    ])
    func agreesWithTheWriter(value: JSONValue) throws {
        #expect(JSONText.byteCount(value) == (try value.serialized()).count)
    }
}
