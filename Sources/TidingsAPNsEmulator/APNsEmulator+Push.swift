import Foundation
import TidingsHTTP
import TidingsModel

extension APNsEmulator {
    /// Push types Apple documents for `apns-push-type`.
    public static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "widgets",
    ]

    /// Topic suffixes of the push types that use one; the rest of the topic is the bundle id.
    static let topicSuffixes = [
        ".voip", ".complication", ".pushkit.fileprovider", ".push-type.liveactivity", ".voip-ptt",
        ".push-type.widgets",
    ]

    /// Apple's payload limit: 4 KB, 5 KB for VoIP.
    static func maximumPayloadBytes(pushType: String) -> Int { pushType == "voip" ? 5120 : 4096 }

    /// `POST /3/device/{token}`: the checks in the order of docs/apns-emulator.md, then the scripted fault,
    /// then acceptance.
    func handlePush(_ request: HTTPRequest) async -> HTTPResponse {
        let apnsID = request.headers["apns-id"]
        switch validate(request) {
        case .failure(let refusal):
            // An invalid apns-id is not echoed; the answer gets a new one.
            return answer(
                status: refusal.status, reason: refusal.reason, apnsID: refusal.reason == "BadMessageId" ? nil : apnsID,
                detail: refusal.detail)
        case .success(var notification):
            if let fault = takeFault(token: notification.deviceToken) {
                return answer(status: fault.status, reason: fault.reason, apnsID: notification.apnsID)
            }
            notification.receivedAt = clock.now
            if notification.pushType == "liveactivity" { recordLiveActivity(notification) }
            deliver(notification)
            count(status: 200, reason: nil)
            return HTTPResponse(status: 200, headers: ["apns-id": notification.apnsID])
        }
    }

    /// An error answer: `{"reason": ...}`, plus `"timestamp"` (milliseconds) for 410, and the emulator's own
    /// `"detail"` when it can say more than Apple's reason does.
    func answer(status: Int, reason: String, apnsID: String?, detail: String? = nil) -> HTTPResponse {
        count(status: status, reason: reason)
        var body: [String: JSONValue] = ["reason": .string(reason)]
        if let detail { body["detail"] = .string(detail) }
        if status == 410 { body["timestamp"] = .integer(clock.now.millisecondsSince1970) }
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        headers["apns-id"] = apnsID ?? UUID().uuidString.lowercased()
        let bytes = (try? JSONWriter(options: .init(sortedKeys: true)).serialize(.object(body))) ?? []
        return HTTPResponse(status: status, headers: headers, body: Data(bytes))
    }

    struct Refusal: Error {
        var status: Int
        var reason: String
        /// What exactly is wrong, beyond Apple's reason; for people reading the emulator's answers.
        var detail: String?
        init(_ status: Int, _ reason: String, detail: String? = nil) {
            self.status = status
            self.reason = reason
            self.detail = detail
        }
    }

    func validate(_ request: HTTPRequest) -> Result<APNsEmulatorNotification, Refusal> {
        Result { () throws(Refusal) -> APNsEmulatorNotification in try check(request) }
    }

    private func check(_ request: HTTPRequest) throws(Refusal) -> APNsEmulatorNotification {
        guard let rawToken = request.pathParameters["token"], !rawToken.isEmpty else {
            throw Refusal(400, "MissingDeviceToken")
        }
        guard Self.isDeviceToken(rawToken) else { throw Refusal(400, "BadDeviceToken") }
        let token = rawToken.lowercased()
        var seen = Set<String>()
        for (name, _) in request.headers
        where name.lowercased().hasPrefix("apns-") || name.lowercased() == "authorization" {
            guard seen.insert(name.lowercased()).inserted else { throw Refusal(400, "DuplicateHeaders") }
        }
        try checkAuthorization(request.headers["authorization"])

        guard let topic = request.headers["apns-topic"], !topic.isEmpty else { throw Refusal(400, "MissingTopic") }
        let bundleID =
            Self.topicSuffixes.first(where: { topic.hasSuffix($0) }).map { String(topic.dropLast($0.count)) } ?? topic
        if !configuration.topics.isEmpty && !configuration.topics.contains(bundleID) {
            throw Refusal(400, "TopicDisallowed")
        }
        if let registered = state.withLock({ $0.deviceTopics[token] }), registered != bundleID {
            throw Refusal(400, "DeviceTokenNotForTopic")
        }

        let pushType = request.headers["apns-push-type"] ?? "alert"
        guard Self.pushTypes.contains(pushType) else { throw Refusal(400, "InvalidPushType") }

        let priority: Int
        if let text = request.headers["apns-priority"] {
            guard let value = Int(text), [1, 5, 10].contains(value) else { throw Refusal(400, "BadPriority") }
            priority = value
        } else {
            priority = pushType == "background" ? 5 : 10
        }
        // Apple: a background notification must be sent with priority 5; 10 is an error.
        if pushType == "background" && priority == 10 { throw Refusal(400, "BadPriority") }

        var expiration: Int64?
        if let text = request.headers["apns-expiration"] {
            guard let value = Int64(text), value >= 0 else { throw Refusal(400, "BadExpirationDate") }
            expiration = value
        }
        let collapseID = request.headers["apns-collapse-id"]
        if let collapseID, collapseID.utf8.count > 64 { throw Refusal(400, "BadCollapseId") }

        let apnsID: String
        if let text = request.headers["apns-id"] {
            guard UUID(uuidString: text) != nil, text.utf8.count == 36 else { throw Refusal(400, "BadMessageId") }
            apnsID = text
        } else {
            apnsID = UUID().uuidString.lowercased()
        }

        if request.body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { throw Refusal(400, "PayloadEmpty") }
        if request.body.count > Self.maximumPayloadBytes(pushType: pushType) { throw Refusal(413, "PayloadTooLarge") }
        // Apple documents no reason for a payload that is not a JSON object; the emulator says BadPayload.
        guard let payload = try? JSONValue.parse(request.body), payload.objectValue != nil else {
            throw Refusal(400, "BadPayload")
        }
        try Self.checkLiveActivity(pushType: pushType, topic: topic, priority: priority, payload: payload)
        return APNsEmulatorNotification(
            apnsID: apnsID, deviceToken: token, topic: topic, pushType: pushType, priority: priority,
            collapseID: collapseID, expiration: expiration, receivedAt: clock.now, payload: payload)
    }

    private func checkAuthorization(_ header: String?) throws(Refusal) {
        guard !configuration.keys.isEmpty else { return }
        guard let header, !header.isEmpty else { throw Refusal(403, "MissingProviderToken") }
        guard header.lowercased().hasPrefix("bearer ") else { throw Refusal(403, "InvalidProviderToken") }
        let jwt = String(header.dropFirst("bearer ".count))
        let now = clock.now
        if let claims = state.withLock({ $0.verifiedTokens[jwt] }) {
            guard now.timeIntervalSince(claims.issuedAt) <= verifier.maximumAge.seconds else {
                throw Refusal(403, "ExpiredProviderToken")
            }
            return
        }
        do {
            let claims = try verifier.verify(jwt, now: now)
            state.withLock { state in
                if state.verifiedTokens.count >= Self.verifiedTokenCacheSize { state.verifiedTokens.removeAll() }
                state.verifiedTokens[jwt] = claims
            }
        } catch {
            throw Refusal(403, error.code == .expired ? "ExpiredProviderToken" : "InvalidProviderToken")
        }
    }

    /// Hex, an even number of digits, at least 64 (32 bytes; Apple's tokens may grow).
    static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.count % 2 == 0 && token.utf8.allSatisfy { $0.isHexDigit }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
