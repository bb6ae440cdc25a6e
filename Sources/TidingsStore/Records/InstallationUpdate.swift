import TidingsModel

/// A change to one field: leave it, or set it (to a value or to nothing).
///
/// JSON maps onto it directly: an absent member is ``keep``, `null` is `set(nil)`.
public enum FieldChange<Value: Sendable & Hashable>: Sendable, Hashable {
    case keep
    case set(Value?)

    /// The field's value after the change.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: current
        case .set(let value): value
        }
    }
}

/// What one `PUT /v1/installations/{id}` changes; fields left at ``FieldChange/keep`` stay as stored.
public struct InstallationUpdate: Sendable, Hashable {
    public var platform: FieldChange<String> = .keep
    public var apnsToken: FieldChange<String> = .keep
    public var voipToken: FieldChange<String> = .keep
    public var fcmToken: FieldChange<String> = .keep
    public var environment: FieldChange<String> = .keep
    public var userID: FieldChange<String> = .keep
    public var consentNotifications: FieldChange<Bool> = .keep
    public var consentAds: FieldChange<Bool> = .keep
    public var consentNightAds: FieldChange<Bool> = .keep
    public var permission: FieldChange<String> = .keep
    public var locale: FieldChange<String> = .keep
    public var country: FieldChange<String> = .keep
    public var timezone: FieldChange<String> = .keep
    public var language: FieldChange<String> = .keep
    public var appVersion: FieldChange<String> = .keep
    public var appBuild: FieldChange<String> = .keep
    public var sdkVersion: FieldChange<String> = .keep
    public var osName: FieldChange<String> = .keep
    public var osVersion: FieldChange<String> = .keep
    public var deviceModel: FieldChange<String> = .keep
    /// Set only by the server when it issues the installation's secret.
    public var secretDigest: FieldChange<[UInt8]> = .keep
    /// Custom attributes merged into the stored ones: a value sets its key, nil removes it; keys not named stay.
    public var attributes: [String: AttributeValue?] = [:]
    /// Removes every stored attribute before ``attributes`` is merged (`"attributes": null`).
    public var clearsAttributes = false
    /// Journey signals written in the upsert's own transaction (the attribute changes journeys are triggered
    /// by): stored exactly when the installation is, so no crash can keep one without the other.
    public var journeySignals: [JourneySignal] = []

    public init() {}

    /// Whether the update names `kind`'s token (set or clear): the device presented it again.
    public func presents(_ kind: TokenType) -> Bool {
        let change: FieldChange<String> =
            switch kind {
            case .apns: apnsToken
            case .voip: voipToken
            case .fcm: fcmToken
            }
        if case .set(.some) = change { return true }
        return false
    }

    /// The attributes an installation holding `current` has after this update.
    public func attributes(after current: [String: AttributeValue]) -> [String: AttributeValue] {
        var result = clearsAttributes ? [:] : current
        for (key, value) in attributes { result[key] = value }
        return result
    }

    /// Whether the update changes who the installation belongs to.
    public var changesUser: Bool {
        if case .set = userID { return true }
        return false
    }

    /// `installation` with every change of this update applied.
    public func applied(to installation: Installation) -> Installation {
        var result = installation
        result.platform = platform.applied(to: installation.platform) ?? "ios"
        result.apnsToken = apnsToken.applied(to: installation.apnsToken)
        result.voipToken = voipToken.applied(to: installation.voipToken)
        result.fcmToken = fcmToken.applied(to: installation.fcmToken)
        result.environment = environment.applied(to: installation.environment)
        result.userID = userID.applied(to: installation.userID)
        result.consents.notifications = consentNotifications.applied(to: installation.consents.notifications)
        result.consents.ads = consentAds.applied(to: installation.consents.ads)
        result.consents.nightAds = consentNightAds.applied(to: installation.consents.nightAds)
        result.permission = permission.applied(to: installation.permission)
        result.locale = locale.applied(to: installation.locale)
        result.country = country.applied(to: installation.country)
        result.timezone = timezone.applied(to: installation.timezone)
        result.language = language.applied(to: installation.language)
        result.appVersion = appVersion.applied(to: installation.appVersion)
        result.appBuild = appBuild.applied(to: installation.appBuild)
        result.sdkVersion = sdkVersion.applied(to: installation.sdkVersion)
        result.osName = osName.applied(to: installation.osName)
        result.osVersion = osVersion.applied(to: installation.osVersion)
        result.deviceModel = deviceModel.applied(to: installation.deviceModel)
        result.secretDigest = secretDigest.applied(to: installation.secretDigest)
        result.attributes = attributes(after: installation.attributes)
        return result
    }
}
