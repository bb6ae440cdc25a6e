extension InstallationState {
    /// The device facts of this state, as a ``DeviceContext``.
    public var deviceContext: DeviceContext {
        DeviceContext(
            timezone: timezone, language: language, locale: locale, country: country, osName: osName,
            osVersion: osVersion, deviceModel: deviceModel, appVersion: appVersion, appBuild: appBuild,
            sdkVersion: sdkVersion)
    }

    /// Replaces every device fact with the context's; a fact the context lacks becomes nil (sent as `null`),
    /// so the server never keeps a stale value the device no longer reports.
    public mutating func apply(_ context: DeviceContext) {
        timezone = context.timezone
        language = context.language
        locale = context.locale
        country = context.country
        osName = context.osName
        osVersion = context.osVersion
        deviceModel = context.deviceModel
        appVersion = context.appVersion
        appBuild = context.appBuild
        sdkVersion = context.sdkVersion
    }
}
