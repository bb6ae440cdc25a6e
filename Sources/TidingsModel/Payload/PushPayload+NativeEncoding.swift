import Foundation

extension PushPayload {
    /// The payload in the native dialect, as `tidingsd` sends it: `aps` plus one `tidings` object.
    ///
    /// Absent fields are omitted; `content-available` and `mutable-content` are written only when true; a
    /// media extension or MIME type that decoding infers from the URL is left out;
    /// an alert with only a body is written as a string. ``data`` goes into `tidings.data` and
    /// ``unrecognized`` is merged back at its paths (the model's own fields win a conflict; arrays are
    /// appended). Whatever the payload's ``dialect``, the result is native.
    ///
    /// Round trip: `try PushPayload(json: p.nativeJSON) == p` for every *valid* native payload `p`:
    /// - ``dialect`` is `.native`;
    /// - ``badge`` is `.set(n)` or `.increment(n)` with n > 0 (`.set(0)` reads back as `.clear`);
    /// - ``sentAt`` is a whole number of milliseconds after September 2001 (10^12 ms) and
    ///   ``InboxPolicy/expiresAt`` a whole number of seconds — the units the format stores;
    /// - ``media`` is normalised: its extension and MIME type are the ones decoding infers when absent;
    /// - ``unrecognized`` holds objects only under `aps` and `tidings`, at keys the model does not map
    ///   (top-level keys of a native payload are data), with no button-like elements;
    /// - numbers are finite.
    public var nativeJSON: JSONValue {
        var root: [String: JSONValue] = ["aps": .object(apsJSON), "tidings": .object(tidingsJSON)]
        if !unrecognized.isEmpty {
            root = UnrecognizedKeys.deepMerge(.object(root), .object(unrecognized)).objectValue ?? root
        }
        return .object(root)
    }

    private var apsJSON: [String: JSONValue] {
        var aps: [String: JSONValue] = [:]
        if let alert { aps["alert"] = alert.apsJSON }
        switch badge {
        case .set(let count): aps["badge"] = .integer(Int64(count))
        case .clear: aps["badge"] = .integer(0)
        case .none, .increment: break
        }
        if let sound { aps["sound"] = sound.apsJSON }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let category { aps["category"] = .string(category) }
        if contentAvailable { aps["content-available"] = .integer(1) }
        if mutableContent { aps["mutable-content"] = .integer(1) }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        return aps
    }

    private var tidingsJSON: [String: JSONValue] {
        var tidings: [String: JSONValue] = ["v": .integer(Int64(NativeDialect.formatVersion))]
        if let messageID { tidings["id"] = .string(messageID) }
        if let campaignID { tidings["cid"] = .string(campaignID) }
        if let appID { tidings["app"] = .string(appID) }
        if let sentAt { tidings["sent"] = .integer(sentAt.millisecondsSince1970) }
        if isInternal { tidings["internal"] = .bool(true) }
        if case .increment(let amount) = badge {
            tidings["badge"] = ["op": "increment", "by": .integer(Int64(amount))]
        }
        if let defaultAction { tidings["action"] = defaultAction.nativeJSON }
        if !buttons.isEmpty { tidings["buttons"] = .array(buttons.map(\.nativeJSON)) }
        if let media { tidings["media"] = media.nativeJSON }
        if let coupon { tidings["coupon"] = .string(coupon) }
        if let inbox {
            var object: [String: JSONValue] = [:]
            if let expiresAt = inbox.expiresAt {
                object["expires_at"] = .integer((expiresAt.millisecondsSince1970 + 500) / 1000)
            }
            tidings["inbox"] = .object(object)
        }
        if !data.isEmpty { tidings["data"] = .object(data) }
        return tidings
    }
}
