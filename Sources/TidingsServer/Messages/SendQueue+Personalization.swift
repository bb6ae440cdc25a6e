import TidingsCampaigns
import TidingsModel
import TidingsStore

extension SendQueue {
    /// Renders `delivery`'s payload for `installation` when its message has templates, and keeps it for
    /// ``takeRenderedPayload(for:)``.
    /// - Returns: nil when the delivery goes out (rendered or not), or the size of a rendered payload over the
    ///   limit (the delivery is then skipped).
    mutating func personalize(_ delivery: MessageDelivery, of message: MessageRecord, for installation: Installation)
        -> Int?
    {
        guard templated[delivery.messageID] == true else { return nil }
        let key = MessageRecord.payloadKey(variant: delivery.variant, language: delivery.language)
        let compiled: PersonalizedPayload?
        if let known = personalized[delivery.messageID]?[key] {
            compiled = known
        } else {
            compiled = PersonalizedPayload.compile(
                message.payload(variant: delivery.variant, language: delivery.language),
                limit: message.kind.payloadLimit)
            personalized[delivery.messageID, default: [:]][key] = .some(compiled)
        }
        guard let compiled else { return nil }
        switch compiled.render(for: installation) {
        case .payload(let bytes):
            rendered[Self.renderedKey(delivery)] = bytes
            return nil
        case .tooLarge(let size):
            return size
        }
    }

    /// The payload rendered for `delivery`, removed from the queue; nil when it has none (no templates).
    mutating func takeRenderedPayload(for delivery: MessageDelivery) -> [UInt8]? {
        guard !rendered.isEmpty else { return nil }
        return rendered.removeValue(forKey: Self.renderedKey(delivery))
    }

    static func renderedKey(_ delivery: MessageDelivery) -> String {
        delivery.messageID + "\u{0}" + delivery.installationID
    }
}
