import Foundation

extension PushPayload {
    /// Decodes a payload object of any dialect (the `userInfo` of a notification, as JSON).
    ///
    /// The dialect is chosen by ``detectDialect(_:)``; each dialect's decoder documents its key mapping and
    /// its message and campaign id fallbacks (docs/payload-format.md has a table per dialect):
    ///
    /// | dialect | message id | campaign id |
    /// |---|---|---|
    /// | native | `tidings.id` | `tidings.cid` |
    /// | Braze | `br_p_id`, else `ab.c` | `ab.c` |
    /// | MoEngage | `moengage.cid` | `moengage.moe_campaign_id`, else `moengage.cid` |
    /// | NHN Cloud | `messageDeliveryReceiptData.messageId` | the same |
    /// | Treasure Data | `message_id` (test payload), else none | `td_campaign_id`, else `campaign_id` |
    /// | FCM | `gcm.message_id` | `google.c.a.c_id` |
    /// | APNs | none | none |
    ///
    /// Any JSON object decodes: values of the wrong type and keys the model has no field for are kept in
    /// ``unrecognized`` at their paths (for the linter to report), the app's own keys in ``data``.
    ///
    /// - Throws: ``PayloadDecodingError/Code/notAnObject`` when `json` is not an object.
    public init(json: JSONValue) throws(PayloadDecodingError) {
        try self.init(json: json, as: PushPayload.detectDialect(json))
    }

    /// Decodes a payload object with the decoder of `dialect`, whatever its keys say: for a payload carrying
    /// keys of two dialects that belongs to the later one (``detectDialect(_:)`` picks the earlier).
    ///
    /// - Throws: ``PayloadDecodingError/Code/notAnObject`` when `json` is not an object.
    public init(json: JSONValue, as dialect: PushDialect) throws(PayloadDecodingError) {
        guard let root = json.objectValue else {
            throw PayloadDecodingError(code: .notAnObject, message: "a push payload must be a JSON object")
        }
        switch dialect {
        case .native: self = NativeDialect.decode(root)
        case .braze: self = BrazeDialect.decode(root)
        case .moengage: self = MoEngageDialect.decode(root)
        case .nhncloud: self = NHNCloudDialect.decode(root)
        case .treasuredata: self = TreasureDataDialect.decode(root)
        case .fcm: self = FCMDialect.decode(root)
        case .apns: self = APNsDialect.decode(root)
        }
    }

    /// Whose wire format a payload is written in; deterministic, first match wins.
    ///
    /// 1. native: a `tidings` object (a `tidings` key of another type is not ours);
    /// 2. Braze: a non-empty `ab` object (`"ab": {}` is not Braze's) or a Braze internal key at the top level
    ///    (`appboy_uninstall_tracking`, `ab_push_fetch_test_triggers_key`, `ab_sync_geos`, `br_ffr`);
    /// 3. MoEngage: a `moengage` object (or a string holding one) — `app_extra` alone is not enough;
    /// 4. NHN Cloud: `messageDeliveryReceiptData`, `messageDeliveryReceipt` or `richMessage`;
    /// 5. Treasure Data: `td_campaign_id`, or `campaign_id` together with `message_id` (the sample's test payload);
    /// 6. FCM: `gcm.message_id` or any `google.c.*` key — vendors relay through FCM, so they come first;
    /// 7. plain APNs otherwise (including non-objects).
    ///
    /// A payload carrying keys of two dialects belongs to the earlier one; the other dialect's keys are then
    /// data or unrecognized keys of the owner.
    public static func detectDialect(_ json: JSONValue) -> PushDialect {
        guard let root = json.objectValue else { return .apns }
        if NativeDialect.owns(root) { return .native }
        if BrazeDialect.owns(root) { return .braze }
        if MoEngageDialect.owns(root) { return .moengage }
        if NHNCloudDialect.owns(root) { return .nhncloud }
        if TreasureDataDialect.owns(root) { return .treasuredata }
        if FCMDialect.owns(root) { return .fcm }
        return .apns
    }

    /// Decodes a payload from its JSON bytes.
    public static func decode(_ bytes: [UInt8]) throws(PayloadDecodingError) -> PushPayload {
        try PushPayload(json: parseJSON(bytes))
    }

    /// The JSON value of a payload's bytes, with the errors decoding throws.
    public static func parseJSON(_ bytes: [UInt8]) throws(PayloadDecodingError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw PayloadDecodingError(
                code: error.code == .emptyInput ? .empty : .malformedJSON, message: error.message,
                byteOffset: error.offset)
        }
    }
}
