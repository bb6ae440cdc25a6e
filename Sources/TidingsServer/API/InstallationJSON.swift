import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Reads the body of `PUT /v1/installations/{id}` and writes an installation as JSON.
///
/// An absent member leaves the stored field as it is; `null` clears it. Every field is checked before
/// anything is stored, so a bad body changes nothing.
enum InstallationJSON {
    static let environments: Set<String> = ["sandbox", "production"]
    static let permissions: Set<String> = ["authorized", "provisional", "ephemeral", "denied", "not_determined"]

    /// The update a request body asks for.
    /// - Throws: 400 `invalid_field` naming the first bad field.
    static func update(from body: [String: JSONValue], attributeLimits: AttributeLimits = AttributeLimits()) throws
        -> InstallationUpdate
    {
        var update = InstallationUpdate()
        update.platform = try text(body, "platform") { isPlatform($0) ? $0.lowercased() : nil }
        update.apnsToken = try text(body, "apns_token", "64 to 200 hex digits", normalizeAPNsToken)
        update.voipToken = try text(body, "voip_token", "64 to 200 hex digits", normalizeAPNsToken)
        update.fcmToken = try text(body, "fcm_token", "1 to 4096 characters without spaces") { token in
            let bytes = token.utf8
            return !bytes.isEmpty && bytes.count <= 4096 && !bytes.contains(where: { $0 <= 0x20 }) ? token : nil
        }
        update.environment = try text(body, "environment", "sandbox or production") {
            environments.contains($0) ? $0 : nil
        }
        update.userID = try text(body, "user_id", "1 to 256 bytes") { (1...256).contains($0.utf8.count) ? $0 : nil }
        update.permission = try text(
            body, "permission", "authorized, provisional, ephemeral, denied or not_determined"
        ) { permissions.contains($0) ? $0 : nil }
        update.locale = try text(body, "locale", "a locale such as ja_JP or en-US") { isLocale($0) ? $0 : nil }
        update.country = try text(body, "country", "a two-letter ISO 3166 code") { country in
            country.utf8.count == 2 && country.utf8.allSatisfy(isLetter) ? country.uppercased() : nil
        }
        update.timezone = try text(body, "timezone", "an IANA time zone such as Asia/Tokyo") {
            isTimeZone($0) ? $0 : nil
        }
        update.language = try text(body, "language", "a BCP 47 language tag such as ja-JP or en") {
            languageTag($0)
        }
        for (field, path) in [
            ("app_version", \InstallationUpdate.appVersion), ("app_build", \.appBuild), ("sdk_version", \.sdkVersion),
            ("os_name", \.osName), ("os_version", \.osVersion), ("device_model", \.deviceModel),
        ] {
            update[keyPath: path] = try text(body, field, "1 to 64 bytes") {
                (1...64).contains($0.utf8.count) ? $0 : nil
            }
        }
        switch body["consents"] {
        case nil: break
        case .null?:
            update.consentNotifications = .set(nil)
            update.consentAds = .set(nil)
            update.consentNightAds = .set(nil)
        case .object(let consents)?:
            update.consentNotifications = try flag(consents, "notifications")
            update.consentAds = try flag(consents, "ads")
            update.consentNightAds = try flag(consents, "night_ads")
        default:
            throw invalid("consents", "consents must be an object")
        }
        switch body["attributes"] {
        case nil: break
        case .null?: update.clearsAttributes = true
        case .object(let attributes)?: update.attributes = try attributeChanges(attributes, limits: attributeLimits)
        default:
            throw invalid("attributes", "attributes must be an object of key to value (null removes a key)")
        }
        return update
    }

    /// The changes an `attributes` object asks for: a value sets its key, `null` removes it.
    /// - Throws: 400 `invalid_attribute` naming the key and the limit it breaks.
    static func attributeChanges(_ object: [String: JSONValue], limits: AttributeLimits) throws
        -> [String: AttributeValue?]
    {
        var changes: [String: AttributeValue?] = [:]
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            do {
                if value.isNull {
                    try limits.check(key: key)
                    changes[key] = .some(nil)
                } else {
                    changes[key] = try AttributeValue.parse(value, key: key, limits: limits)
                }
            } catch {
                throw HTTPError(status: 400, code: "invalid_attribute", message: error.message)
            }
        }
        return changes
    }

    /// Refuses an update that would leave the installation with more attributes than `limits` allow.
    static func checkAttributeCount(
        _ update: InstallationUpdate, existing: Installation?, limits: AttributeLimits
    ) throws {
        guard !update.attributes.isEmpty else { return }
        do {
            try limits.check(count: update.attributes(after: existing?.attributes ?? [:]).count)
        } catch {
            throw HTTPError(status: 400, code: "too_many_attributes", message: error.message)
        }
    }

    /// `installation` as its JSON object; absent fields are `null`.
    static func json(_ installation: Installation) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        return .object([
            "installation_id": .string(installation.installationID),
            "platform": .string(installation.platform),
            "apns_token": text(installation.apnsToken),
            "voip_token": text(installation.voipToken),
            "fcm_token": text(installation.fcmToken),
            "environment": text(installation.environment),
            "user_id": text(installation.userID),
            "attributes": AttributeValue.json(installation.attributes),
            "consents": .object([
                "notifications": flag(installation.consents.notifications),
                "ads": flag(installation.consents.ads),
                "night_ads": flag(installation.consents.nightAds),
            ]),
            "permission": text(installation.permission),
            "locale": text(installation.locale),
            "country": text(installation.country),
            "timezone": text(installation.timezone),
            "language": text(installation.language),
            "app_version": text(installation.appVersion),
            "app_build": text(installation.appBuild),
            "sdk_version": text(installation.sdkVersion),
            "os_name": text(installation.osName),
            "os_version": text(installation.osVersion),
            "device_model": text(installation.deviceModel),
            "token_registered_at": .object(
                Dictionary(
                    uniqueKeysWithValues: TokenType.allCases.map { kind in
                        (kind.rawValue, installation.tokenRegisteredAt[kind].map(JSONValue.integer) ?? .null)
                    })),
            "created_at": .integer(installation.createdAt),
            "updated_at": .integer(installation.updatedAt),
        ])
    }

    /// `installation` as the bytes of ``json(_:)`` written compactly with sorted keys, written field by
    /// field: the same bytes, without building and sorting a dictionary for every upsert. A newly issued
    /// `secret` is added as `installation_secret`, the one time it is shown.
    static func data(_ installation: Installation, secret: String? = nil) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(512)
        func key(_ name: StaticString, first: Bool = false) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func text(_ name: StaticString, _ value: String?, first: Bool = false) {
            key(name, first: first)
            if let value {
                JSONText.writeString(value, into: &bytes)
            } else {
                bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
            }
        }
        func flag(_ name: StaticString, _ value: Bool?, first: Bool = false) {
            key(name, first: first)
            let literal: StaticString = value.map { $0 ? "true" : "false" } ?? "null"
            bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
        func integer(_ name: StaticString, _ value: Int64?, first: Bool = false) {
            key(name, first: first)
            bytes.append(contentsOf: (value.map(String.init) ?? "null").utf8)
        }
        bytes.append(UInt8(ascii: "{"))
        text("apns_token", installation.apnsToken, first: true)
        text("app_build", installation.appBuild)
        text("app_version", installation.appVersion)
        key("attributes")
        JSONText.write(AttributeValue.json(installation.attributes), into: &bytes)
        key("consents")
        bytes.append(UInt8(ascii: "{"))
        flag("ads", installation.consents.ads, first: true)
        flag("night_ads", installation.consents.nightAds)
        flag("notifications", installation.consents.notifications)
        bytes.append(UInt8(ascii: "}"))
        text("country", installation.country)
        integer("created_at", installation.createdAt)
        text("device_model", installation.deviceModel)
        text("environment", installation.environment)
        text("fcm_token", installation.fcmToken)
        text("installation_id", installation.installationID)
        if let secret { text("installation_secret", secret) }
        text("language", installation.language)
        text("locale", installation.locale)
        text("os_name", installation.osName)
        text("os_version", installation.osVersion)
        text("permission", installation.permission)
        text("platform", installation.platform)
        text("sdk_version", installation.sdkVersion)
        text("timezone", installation.timezone)
        key("token_registered_at")
        bytes.append(UInt8(ascii: "{"))
        integer("apns", installation.tokenRegisteredAt[.apns], first: true)
        integer("fcm", installation.tokenRegisteredAt[.fcm])
        integer("voip", installation.tokenRegisteredAt[.voip])
        bytes.append(UInt8(ascii: "}"))
        integer("updated_at", installation.updatedAt)
        text("user_id", installation.userID)
        text("voip_token", installation.voipToken)
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    /// An APNs device token as lower-case hex: an even number of hex digits, 64 to 200 of them.
    static func normalizeAPNsToken(_ token: String) -> String? {
        let bytes = token.utf8
        guard bytes.count % 2 == 0, (64...200).contains(bytes.count), bytes.allSatisfy(isHexDigit) else { return nil }
        return token.lowercased()
    }

    private static func text(
        _ body: [String: JSONValue], _ field: String, _ expectation: String = "a short lower-case name",
        _ normalize: (String) -> String?
    ) throws -> FieldChange<String> {
        switch body[field] {
        case nil: return .keep
        case .null?: return .set(nil)
        case .string(let value)?:
            guard let normalized = normalize(value) else {
                throw invalid(field, "\(field) must be \(expectation)")
            }
            return .set(normalized)
        default:
            throw invalid(field, "\(field) must be a string")
        }
    }

    private static func flag(_ object: [String: JSONValue], _ field: String) throws -> FieldChange<Bool> {
        switch object[field] {
        case nil: return .keep
        case .null?: return .set(nil)
        case .bool(let value)?: return .set(value)
        default: throw invalid("consents.\(field)", "consents.\(field) must be true, false or null")
        }
    }

    static func invalid(_ field: String, _ message: String) -> HTTPError {
        HTTPError(status: 400, code: "invalid_field", message: message)
    }

    /// Time zones already found valid: `TimeZone(identifier:)` reads the zone file on Linux every time.
    /// Only valid identifiers are kept, so the set is bounded by the IANA database.
    private static let knownTimeZones = LockedBox(Set<String>())

    static func isTimeZone(_ identifier: String) -> Bool {
        guard (1...64).contains(identifier.utf8.count) else { return false }
        if knownTimeZones.withLock({ $0.contains(identifier) }) { return true }
        guard TimeZone(identifier: identifier) != nil else { return false }
        knownTimeZones.withLock { _ = $0.insert(identifier) }
        return true
    }

    /// A BCP 47 tag as `language[-subtag]...` (`ja`, `ja-JP`, `zh-Hant-TW`), with `_` read as `-`; nil when it
    /// is not one.
    static func languageTag(_ value: String) -> String? {
        let tag = value.replacingOccurrences(of: "_", with: "-")
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.utf8.count <= 35, let primary = subtags.first, (2...3).contains(primary.utf8.count),
            primary.utf8.allSatisfy(isLetter),
            subtags.dropFirst().allSatisfy({ (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy(isAlphanumeric) })
        else { return nil }
        return tag
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }

    private static func isPlatform(_ value: String) -> Bool {
        (1...16).contains(value.utf8.count) && value.utf8.allSatisfy(isLetter)
    }

    private static func isLocale(_ value: String) -> Bool {
        (2...35).contains(value.utf8.count)
            && value.utf8.allSatisfy {
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
