/// Whose wire format a payload is written in.
///
/// When keys of several dialects appear in one payload, ownership is decided in this order (first match
/// wins): native (a `tidings` object), Braze (a non-empty `ab` object or a Braze internal key), MoEngage
/// (a `moengage` object), NHN Cloud (`messageDeliveryReceiptData`/`messageDeliveryReceipt` or
/// `richMessage`), Treasure Data (`td_campaign_id`, or `campaign_id` with `message_id` as in Treasure Data's
/// test payload), FCM (`gcm.message_id` or `google.c.*` keys), and plain APNs otherwise. Vendors come
/// before FCM because vendors relay through FCM. ``PushPayload/detectDialect(_:)`` documents each tie-break.
public enum PushDialect: String, Sendable, Hashable, CaseIterable, Codable {
    case native
    case braze
    case moengage
    case nhncloud
    case treasuredata
    case fcm
    case apns
}
