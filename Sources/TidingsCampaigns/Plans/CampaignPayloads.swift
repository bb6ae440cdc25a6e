import TidingsModel
import TidingsStore

/// The payloads of one message, built and size-checked at acceptance: one per (variant, language), picked per
/// delivery at send time (``MessageRecord/payload(variant:language:)``).
public struct CampaignPayloads {
    /// The payload of the first variant's default content: what a delivery without variant or language gets.
    public var main: [UInt8]
    /// By ``MessageRecord/payloadKey(variant:language:)``; empty for one content in one language.
    public var variants: [String: [UInt8]] = [:]

    /// The most payloads one message may carry (variants times languages).
    static let maximumCount = 200

    public static func build(_ request: MessageRequest, messageID: String, builder: MessagePayloadBuilder)
        throws(MessageError) -> CampaignPayloads
    {
        let arms: [(id: String?, field: String, content: LocalizedContent)] =
            request.variants.isEmpty
            ? [(nil, "content", request.localizedContent)]
            : request.variants.enumerated().map { (index, variant) in
                (variant.id, "variants[\(index)].content", variant.content)
            }
        let count = arms.reduce(0) { $0 + $1.content.byKey.count }
        guard count <= maximumCount else {
            throw .invalid(
                "variants", "make \(count) payloads (variants times languages); the limit is \(maximumCount)")
        }
        var payloads = CampaignPayloads(main: [])
        for arm in arms {
            for (key, content) in arm.content.byKey.sorted(by: { $0.key < $1.key }) {
                let bytes: [UInt8]
                do {
                    // Templates are checked here, once per content; they are rendered per installation at send.
                    try ContentTemplates.validate(content)
                    bytes = try builder.build(
                        content: content, kind: request.kind, messageID: messageID, campaignID: request.campaignID
                    ).bytes
                } catch {
                    // Name the variant and language the problem is in.
                    let prefix = arm.content.isLocalized ? "\(arm.field).\(key)" : arm.field
                    let message =
                        error.message.hasPrefix("content")
                        ? prefix + error.message.dropFirst("content".count) : "\(prefix): \(error.message)"
                    throw MessageError(
                        code: error.code,
                        field: error.field.map {
                            $0.hasPrefix("content") ? prefix + $0.dropFirst("content".count) : $0
                        },
                        message: message, status: error.status)
                }
                if arm.id == arms[0].id && key == LocalizedContent.defaultKey { payloads.main = bytes }
                if arm.id != nil || arm.content.isLocalized {
                    payloads.variants[
                        MessageRecord.payloadKey(variant: arm.id, language: arm.content.isLocalized ? key : nil)] =
                        bytes
                }
            }
        }
        return payloads
    }
}
