import TidingsModel

extension InstallationState {
    /// The body of `PUT /v1/installations/{id}`: every field, absent ones as `null`.
    ///
    /// - Parameter includingAlertTokens: false leaves out the APNs and FCM tokens (sent as `null`, which also
    ///   clears any the server holds) when the person has not allowed notifications. The VoIP token is kept:
    ///   PushKit pushes do not need notification permission.
    /// - Parameter removedAttributes: attribute keys to remove on the server, sent as `null` (the server
    ///   merges `attributes`). `attributes` is left out when there is nothing to set or remove.
    public func requestBody(includingAlertTokens: Bool = true, removedAttributes: Set<String> = []) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        var body: [String: JSONValue] = [
            "platform": .string(platform),
            "apns_token": includingAlertTokens ? text(apnsToken?.value) : .null,
            "voip_token": text(voipToken?.value),
            "fcm_token": includingAlertTokens ? text(fcmToken?.value) : .null,
            "environment": text(environment?.rawValue),
            "user_id": text(userID),
            "consents": .object([
                "notifications": flag(consents.notifications),
                "ads": flag(consents.ads),
                "night_ads": flag(consents.nightAds),
            ]),
            "permission": text(permission?.rawValue),
            "locale": text(locale),
            "language": text(language),
            "country": text(country),
            "timezone": text(timezone),
            "app_version": text(appVersion),
            "app_build": text(appBuild),
            "sdk_version": text(sdkVersion),
            "os_name": text(osName),
            "os_version": text(osVersion),
            "device_model": text(deviceModel),
        ]
        var attributesJSON = attributes.mapValues(\.json)
        for key in removedAttributes where attributes[key] == nil { attributesJSON[key] = .null }
        if !attributesJSON.isEmpty { body["attributes"] = .object(attributesJSON) }
        return .object(body)
    }

    /// Reads a state from the installation JSON the server answers (or the registrar persisted).
    ///
    /// Lenient: a field that is missing, of the wrong type or not a valid token reads as nil, and an
    /// unknown permission or environment reads as nil, so a newer server never breaks an older app.
    public init(json: JSONValue) {
        func text(_ key: String) -> String? { json[key]?.stringValue }
        func flag(_ key: String) -> Bool? {
            if case .bool(let value)? = json["consents"]?[key] { return value }
            return nil
        }
        func token(_ key: String, _ type: TokenType) -> DeviceToken? {
            text(key).flatMap { try? DeviceToken.parse($0, type: type) }
        }
        self.init(
            platform: text("platform") ?? "ios", apnsToken: token("apns_token", .apns),
            voipToken: token("voip_token", .voip), fcmToken: token("fcm_token", .fcm),
            environment: text("environment").flatMap(APNsEnvironment.init(rawValue:)), userID: text("user_id"),
            consents: Consents(notifications: flag("notifications"), ads: flag("ads"), nightAds: flag("night_ads")),
            permission: text("permission").flatMap(NotificationPermission.init(rawValue:)), locale: text("locale"),
            country: text("country"), timezone: text("timezone"), appVersion: text("app_version"),
            sdkVersion: text("sdk_version"), osVersion: text("os_version"), deviceModel: text("device_model"),
            language: text("language"), osName: text("os_name"), appBuild: text("app_build"),
            attributes: json["attributes"]?.objectValue.map(AttributeValue.decodeStored) ?? [:])
    }

    /// A stable fingerprint of a request body: FNV-1a 64 over its sorted-key JSON, as 16 hex digits.
    ///
    /// Foundation on Linux has no SHA-256, and the fingerprint only has to tell "changed" from "unchanged"
    /// for one installation, not resist an adversary.
    public static func fingerprint(of body: JSONValue) -> String {
        // The body holds no doubles, so serialising cannot fail; an empty input still hashes deterministically.
        let bytes = (try? body.serialized(sortedKeys: true)) ?? []
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
