import Foundation

/// A push payload of any dialect carried over to the native one, with what did not come along and what the
/// native format stores differently: what `tidings payload convert` prints when a team brings its vendor's
/// payloads (docs/migrating.md).
///
/// The native payload is ``PushPayload/nativeJSON`` of the decoded payload without its vendor leftovers
/// (``PushPayload/unrecognized``): a vendor's keys mean nothing to the Tidings SDK, so each is listed in
/// ``notCarried`` with the reason instead of being copied along. The app's own keys travel in `tidings.data`.
///
/// The round trip is checked on the spot: the native payload is decoded again, and every field of the
/// canonical model that reads back differently is listed in ``roundTripChanges`` (for example a send time
/// with sub-millisecond digits, or `badge: 0`, which the native format reads as "clear").
public struct PayloadConversion: Sendable, Hashable {
    /// A value of the source payload that the native payload leaves out.
    public struct NotCarried: Sendable, Hashable {
        public enum Reason: String, Sendable, Hashable, CaseIterable {
            /// A key Tidings has no field for, or a value of a type its field does not accept.
            case noEquivalent = "no_equivalent"
            /// A key a relay (FCM) or a tool (`xcrun simctl`) adds: bookkeeping of the transport, not content.
            case transport
            /// A vendor's system-push marker; the native payload says `tidings.internal` instead.
            case systemPushMarker = "system_push_marker"

            /// One sentence for a person.
            public var explanation: String {
                switch self {
                case .noEquivalent:
                    "Tidings has no field with this meaning, or the value is not of a type its field accepts"
                case .transport: "added by a relay or a tool, not content: the sending provider sets its own"
                case .systemPushMarker: "a vendor's system-push marker: the native payload says tidings.internal"
                }
            }
        }

        /// The value's path from the payload's root, object keys joined by dots (`ab.ab_cat`).
        public var path: String
        public var value: JSONValue
        public var reason: Reason

        public init(path: String, value: JSONValue, reason: Reason) {
            self.path = path
            self.value = value
            self.reason = reason
        }
    }

    /// A field of the canonical payload that reads back from the native payload with another value.
    public struct FieldChange: Sendable, Hashable {
        /// The field's name in the canonical model's JSON (`sent_at`, `badge`, `media`...).
        public var field: String
        public var before: JSONValue
        public var after: JSONValue

        public init(field: String, before: JSONValue, after: JSONValue) {
            self.field = field
            self.before = before
            self.after = after
        }
    }

    /// The dialect the source was read as.
    public var sourceDialect: PushDialect
    /// The dialect the payload's own keys say it is (differs from ``sourceDialect`` when one was forced).
    public var detectedDialect: PushDialect
    /// The canonical payload of the source, as decoded.
    public var source: PushPayload
    /// The payload in the native dialect.
    public var native: JSONValue
    /// The canonical payload the native one decodes to.
    public var converted: PushPayload
    /// Source values the native payload leaves out, by path.
    public var notCarried: [NotCarried]
    /// Fields that read back differently from the native payload; empty when the round trip is exact.
    public var roundTripChanges: [FieldChange]

    /// Whether everything in the source came along unchanged.
    public var isLossless: Bool { notCarried.isEmpty && roundTripChanges.isEmpty }

    /// Converts `json`, read in `dialect` (the detected one when nil).
    ///
    /// - Throws: ``PayloadDecodingError/Code/notAnObject`` when `json` is not an object.
    public init(_ json: JSONValue, from dialect: PushDialect? = nil) throws(PayloadDecodingError) {
        detectedDialect = PushPayload.detectDialect(json)
        sourceDialect = dialect ?? detectedDialect
        source = try PushPayload(json: json, as: sourceDialect)
        var carried = source
        carried.dialect = .native
        carried.unrecognized = [:]
        // A value the native format cannot hold (a send time before 1970) reads back as a leftover: it is left
        // out of the payload, and the round trip names its field.
        var readBack = try PushPayload(json: carried.nativeJSON)
        readBack.unrecognized = [:]
        native = readBack.nativeJSON
        converted = try PushPayload(json: native)
        notCarried = Self.leaves(of: source.unrecognized, at: []).map { path, value in
            NotCarried(path: path.joined(separator: "."), value: value, reason: Self.reason(for: path))
        }.sorted { $0.path < $1.path }
        roundTripChanges = Self.changes(from: carried, to: converted)
    }

    /// Converts JSON bytes.
    public static func convert(_ bytes: [UInt8], from dialect: PushDialect? = nil) throws(PayloadDecodingError)
        -> PayloadConversion
    {
        try PayloadConversion(PushPayload.parseJSON(bytes), from: dialect)
    }

    /// Every non-object value under `object`, with its path; an empty object is a value of its own.
    private static func leaves(of object: [String: JSONValue], at path: [String]) -> [([String], JSONValue)] {
        object.flatMap { key, value -> [([String], JSONValue)] in
            if let child = value.objectValue, !child.isEmpty { return leaves(of: child, at: path + [key]) }
            return [(path + [key], value)]
        }
    }

    /// The canonical fields that differ, in name order; the dialect always does, and leftovers were dropped.
    private static func changes(from before: PushPayload, to after: PushPayload) -> [FieldChange] {
        let old = PayloadReport.fields(of: before)
        let new = PayloadReport.fields(of: after)
        return old.keys.sorted().compactMap { field in
            let was = old[field] ?? .null
            let now = new[field] ?? .null
            guard field != "dialect" && field != "unrecognized" && was != now else { return nil }
            return FieldChange(field: field, before: was, after: now)
        }
    }

    private static func reason(for path: [String]) -> NotCarried.Reason {
        guard let key = path.last else { return .noEquivalent }
        if path.count == 1 && PayloadNormalizer.isTransportKey(key) { return .transport }
        let brazeMarker = path.count == 1 || (path.count == 2 && path[0] == "ab")
        if brazeMarker && BrazeDialect.internalKeys.contains(key) { return .systemPushMarker }
        return .noEquivalent
    }
}
