import Foundation

/// Everything the lint rules look at: the decoded payload, the JSON it came from, and the facts around it.
public struct PayloadLintInput: Sendable {
    /// The payload as decoded from ``json``.
    public var payload: PushPayload
    /// The raw payload object, for rules about keys the model does not keep (types, unknown `aps` keys).
    public var json: JSONValue
    /// The size of the payload as it will be sent, in bytes.
    public var sizeInBytes: Int
    /// The size without insignificant whitespace, when the caller measured it (a pretty-printed file may
    /// fit once compacted; the size message then says so).
    public var compactSizeInBytes: Int?
    /// The time expiry rules compare against.
    public var now: Date
    /// Whether the payload goes out as a VoIP push (`apns-push-type: voip`), which allows 5120 bytes.
    public var isVoIP: Bool

    public init(
        payload: PushPayload, json: JSONValue, sizeInBytes: Int, compactSizeInBytes: Int? = nil, now: Date,
        isVoIP: Bool = false
    ) {
        self.payload = payload
        self.json = json
        self.sizeInBytes = sizeInBytes
        self.compactSizeInBytes = compactSizeInBytes
        self.now = now
        self.isVoIP = isVoIP
    }

    /// The `aps` object, when the payload has one.
    public var aps: [String: JSONValue]? {
        json["aps"]?.objectValue
    }

    /// The size APNs accepts for this push.
    public var sizeLimit: Int {
        PayloadLinter.maximumSize(isVoIP: isVoIP)
    }
}
