import TidingsModel

extension MessageRecord {
    /// ``payloadVariants`` as one JSON object of key to payload text, as both backends store it; nil when
    /// there are none. Payloads are UTF-8 JSON, so they are kept as text.
    package var encodedPayloadVariants: String? {
        guard !payloadVariants.isEmpty else { return nil }
        let object = JSONValue.object(
            payloadVariants.mapValues { .string(String(decoding: $0, as: UTF8.self)) })
        return try? object.serializedString(sortedKeys: true)
    }

    /// The payloads ``encodedPayloadVariants`` wrote; empty for nil or anything unreadable.
    package static func decodePayloadVariants(_ text: String?) -> [String: [UInt8]] {
        guard let text, let object = (try? JSONValue.parse(text))?.objectValue else { return [:] }
        return object.compactMapValues { $0.stringValue.map { Array($0.utf8) } }
    }
}
