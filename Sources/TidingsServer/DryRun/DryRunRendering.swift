import TidingsModel

/// One payload of a dry run: a (variant, language) the message builds, personalised for one installation that
/// would receive it, with its size against APNs' limit and the linter's findings.
public struct DryRunRendering: Sendable, Hashable {
    /// The variant's id; nil for a message without variants.
    public var variant: String?
    /// The content's language key (`default` for the fallback); nil for content that is not localized.
    public var language: String?
    /// The installation it was personalised for; nil when the audience has none that gets it.
    public var installationID: String?
    /// Exactly what a real send would push to that installation, as JSON.
    public var payload: JSONValue
    public var payloadBytes: Int
    /// APNs' limit for the message's kind: 4096 bytes, 5120 for VoIP.
    public var limitBytes: Int
    public var lint: [PayloadWarning]
    /// What simulated devices show of it, one JSON object per device profile (docs/campaigns.md, "Dry run");
    /// empty until a previewer fills it.
    public var devicePreviews: [JSONValue] = []

    public var fits: Bool { payloadBytes <= limitBytes }

    public var json: JSONValue {
        [
            "variant": variant.map(JSONValue.string) ?? .null, "language": language.map(JSONValue.string) ?? .null,
            "installation_id": installationID.map(JSONValue.string) ?? .null, "payload": payload,
            "payload_bytes": .integer(Int64(payloadBytes)), "limit_bytes": .integer(Int64(limitBytes)),
            "fits": .bool(fits),
            "lint": .array(
                lint.map { warning in
                    [
                        "rule": .string(warning.code.rawValue), "severity": .string(warning.severity.rawValue),
                        "message": .string(warning.message), "path": warning.path.map(JSONValue.string) ?? .null,
                    ]
                }),
            "device_previews": .array(devicePreviews),
        ]
    }
}
