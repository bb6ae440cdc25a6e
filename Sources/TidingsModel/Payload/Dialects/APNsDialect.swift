/// Decodes a plain APNs payload: `aps`, and the app's own keys at the top level.
///
/// There is no message or campaign id. Keys added by tools (`Simulator Target Bundle`) are kept in
/// ``PushPayload/unrecognized``; everything else outside `aps` is the app's ``PushPayload/data``.
enum APNsDialect {
    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .apns)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        for (key, value) in root {
            if key == "aps" {
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
            } else if PayloadNormalizer.isTransportKey(key) {
                unrecognized.keep(value, at: [key])
            } else {
                data[key] = value
            }
        }
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }
}
