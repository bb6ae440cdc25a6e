import Foundation
import TidingsModel

/// Parses JSON text the way the tests build payloads.
func jsonValue(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}

/// Decodes a payload from JSON text.
func decodePayload(_ text: String) throws -> PushPayload {
    try PushPayload(json: jsonValue(text))
}
