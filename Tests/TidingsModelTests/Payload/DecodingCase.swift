import Testing
import TidingsModel

/// One row of a dialect's decoding table: a payload and the exact canonical value it decodes to.
struct DecodingCase: CustomTestStringConvertible, Sendable {
    let name: String
    let json: String
    let expected: PushPayload

    init(_ name: String, _ json: String, _ expected: PushPayload) {
        self.name = name
        self.json = json
        self.expected = expected
    }

    var testDescription: String { name }
}
