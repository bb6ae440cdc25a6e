import Foundation

extension TidingsClient.Configuration {
    /// The Info.plist keys read by ``init(infoPlist:containerResolver:)``; docs/Configuration.md says
    /// what each accepts.
    public enum InfoPlistKey {
        public static let appKey = "TidingsAppKey"
        public static let serverURL = "TidingsServerURL"
        public static let appGroup = "TidingsAppGroup"
        public static let environment = "TidingsEnvironment"
        public static let badgeUpdatesEnabled = "TidingsBadgeUpdatesEnabled"
        public static let badgeFollowsInbox = "TidingsBadgeFollowsInbox"
        public static let badgeClearsOnLaunch = "TidingsBadgeClearsOnLaunch"
        public static let alwaysAllowTokenRegistration = "TidingsAlwaysAllowTokenRegistration"
        public static let deepLinkSchemes = "TidingsDeepLinkSchemes"
        public static let deepLinkHosts = "TidingsDeepLinkHosts"
        public static let foregroundPresentation = "TidingsForegroundPresentation"
        public static let sendReplyTextToAnalytics = "TidingsSendReplyTextToAnalytics"
        public static let handledDialects = "TidingsHandledDialects"
        public static let mediaAllowInsecureHTTP = "TidingsMediaAllowInsecureHTTP"
        public static let flushThreshold = "TidingsUploadFlushThreshold"
        public static let flushIntervalSeconds = "TidingsUploadFlushIntervalSeconds"
        public static let notificationDelegateProxyEnabled = "TidingsNotificationDelegateProxyEnabled"
        public static let requestAuthorizationAtLaunch = "TidingsRequestAuthorizationAtLaunch"
        public static let requestProvisionalAuthorization = "TidingsRequestProvisionalAuthorization"
        public static let providesAppNotificationSettings = "TidingsProvidesAppNotificationSettings"
        public static let keychainAccessGroup = "TidingsKeychainAccessGroup"
        public static let urlTypes = "CFBundleURLTypes"
        public static let appVersion = "CFBundleShortVersionString"
        public static let appBuild = "CFBundleVersion"
    }

    /// Reads the configuration from an Info.plist-shaped dictionary (`Bundle.main.infoDictionary`).
    ///
    /// Booleans may be plist booleans or the strings `YES`/`NO`/`true`/`false` (what a `$(BUILD_SETTING)`
    /// expands to); numbers may be numbers or decimal strings.
    ///
    /// - Parameters:
    ///   - infoPlist: the dictionary.
    ///   - containerResolver: the directory of an App Group id; on Apple platforms
    ///     `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`. Without `TidingsAppGroup`
    ///     the container is `Application Support/Tidings`, which the extension cannot see.
    /// - Throws: ``ConfigurationError``: `.missingKey` for `TidingsAppKey` or `TidingsServerURL`,
    ///   `.invalidValue` for a value of the wrong type or shape, `.appGroupUnavailable` when the group's
    ///   directory cannot be resolved.
    public init(
        infoPlist: [String: Any],
        containerResolver: (String) -> URL? = TidingsClient.Configuration.appGroupContainer
    ) throws(ConfigurationError) {
        let plist = InfoPlistReader(values: infoPlist)
        guard let appKey = try plist.string(InfoPlistKey.appKey), !appKey.isEmpty else {
            throw ConfigurationError(code: .missingKey, key: InfoPlistKey.appKey, message: "the app key is required")
        }
        guard let serverText = try plist.string(InfoPlistKey.serverURL), !serverText.isEmpty else {
            throw ConfigurationError(
                code: .missingKey, key: InfoPlistKey.serverURL, message: "the server URL is required")
        }
        guard let serverURL = URL(string: serverText), let scheme = serverURL.scheme?.lowercased(),
            scheme == "https" || scheme == "http", serverURL.host?.isEmpty == false
        else {
            throw ConfigurationError(
                code: .invalidValue, key: InfoPlistKey.serverURL,
                message: "expected an http(s) URL with a host, got \"\(serverText)\"")
        }
        let directory: URL
        if let group = try plist.string(InfoPlistKey.appGroup), !group.isEmpty {
            guard let resolved = containerResolver(group) else {
                throw ConfigurationError(
                    code: .appGroupUnavailable, key: InfoPlistKey.appGroup,
                    message: "no container for App Group \"\(group)\"; check the App Groups entitlement")
            }
            directory = resolved.appendingPathComponent("Tidings")
        } else {
            let support =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            directory = support.appendingPathComponent("Tidings")
        }
        self.init(appKey: appKey, serverURL: serverURL, containerDirectory: directory)

        if let text = try plist.string(InfoPlistKey.environment) {
            guard let value = Environment(rawValue: text.lowercased()) else {
                throw plist.invalid(
                    InfoPlistKey.environment, "expected automatic, sandbox or production, got \"\(text)\"")
            }
            environment = value
        }
        badgePolicy = BadgePolicy(
            updatesEnabled: try plist.bool(InfoPlistKey.badgeUpdatesEnabled) ?? badgePolicy.updatesEnabled,
            followsInboxUnreadCount: try plist.bool(InfoPlistKey.badgeFollowsInbox)
                ?? badgePolicy.followsInboxUnreadCount,
            clearsOnLaunch: try plist.bool(InfoPlistKey.badgeClearsOnLaunch) ?? badgePolicy.clearsOnLaunch)
        alwaysAllowTokenRegistration =
            try plist.bool(InfoPlistKey.alwaysAllowTokenRegistration) ?? alwaysAllowTokenRegistration
        sendsReplyTextToAnalytics = try plist.bool(InfoPlistKey.sendReplyTextToAnalytics) ?? sendsReplyTextToAnalytics
        automaticIntegration = AutomaticIntegrationOptions(
            installsNotificationDelegateProxy: try plist.bool(InfoPlistKey.notificationDelegateProxyEnabled)
                ?? automaticIntegration.installsNotificationDelegateProxy,
            requestsAuthorizationAtLaunch: try plist.bool(InfoPlistKey.requestAuthorizationAtLaunch)
                ?? automaticIntegration.requestsAuthorizationAtLaunch,
            requestsProvisionalAuthorization: try plist.bool(InfoPlistKey.requestProvisionalAuthorization)
                ?? automaticIntegration.requestsProvisionalAuthorization,
            providesAppNotificationSettings: try plist.bool(InfoPlistKey.providesAppNotificationSettings)
                ?? automaticIntegration.providesAppNotificationSettings)
        deepLinks = DeepLinkAllowList(
            schemes: Set(try plist.strings(InfoPlistKey.deepLinkSchemes) ?? []),
            hosts: Set(try plist.strings(InfoPlistKey.deepLinkHosts) ?? []))
        appURLSchemes = Self.urlSchemes(infoPlist[InfoPlistKey.urlTypes])
        if let names = try plist.strings(InfoPlistKey.foregroundPresentation) {
            foregroundPresentation = try Self.presentation(names, plist: plist)
        }
        if let names = try plist.strings(InfoPlistKey.handledDialects) {
            var dialects = Set<PushDialect>()
            for name in names {
                guard let dialect = PushDialect(rawValue: name.lowercased()) else {
                    let known = PushDialect.allCases.map(\.rawValue).joined(separator: ", ")
                    throw plist.invalid(InfoPlistKey.handledDialects, "unknown dialect \"\(name)\"; known: \(known)")
                }
                dialects.insert(dialect)
            }
            handledDialects = dialects
        }
        mediaPolicy.allowInsecureHTTP = try plist.bool(InfoPlistKey.mediaAllowInsecureHTTP) ?? false
        if let threshold = try plist.integer(InfoPlistKey.flushThreshold) {
            guard threshold >= 1 else { throw plist.invalid(InfoPlistKey.flushThreshold, "must be at least 1") }
            upload.flushThreshold = threshold
        }
        if let seconds = try plist.integer(InfoPlistKey.flushIntervalSeconds) {
            guard seconds >= 1 else {
                throw plist.invalid(InfoPlistKey.flushIntervalSeconds, "must be at least 1 second")
            }
            upload.flushInterval = .seconds(seconds)
        }
        if let group = try plist.string(InfoPlistKey.keychainAccessGroup), !group.isEmpty {
            keychainAccessGroup = group
        }
        appVersion = try plist.string(InfoPlistKey.appVersion)
        deviceContextProvider = SystemDeviceContextProvider(
            appVersion: appVersion, appBuild: try plist.string(InfoPlistKey.appBuild))
    }

    private static func presentation(
        _ names: [String], plist: InfoPlistReader
    ) throws(ConfigurationError) -> PresentationOptions {
        var options: PresentationOptions = []
        for name in names {
            switch name.lowercased() {
            case "banner": options.insert(.banner)
            case "list": options.insert(.list)
            case "sound": options.insert(.sound)
            case "badge": options.insert(.badge)
            default:
                throw plist.invalid(
                    InfoPlistKey.foregroundPresentation, "unknown option \"\(name)\"; known: banner, list, sound, badge"
                )
            }
        }
        return options
    }

    /// The schemes of `CFBundleURLTypes` (each type's `CFBundleURLSchemes`), lowercase; malformed entries are
    /// skipped, since Xcode writes this key, not the app's developer.
    static func urlSchemes(_ value: Any?) -> Set<String> {
        guard let types = value as? [Any] else { return [] }
        var schemes = Set<String>()
        for case let type as [String: Any] in types {
            for case let scheme as String in type["CFBundleURLSchemes"] as? [Any] ?? [] where !scheme.isEmpty {
                schemes.insert(scheme.lowercased())
            }
        }
        return schemes
    }

    /// The App Group's directory, where the platform has App Groups; nil elsewhere.
    public static func appGroupContainer(_ group: String) -> URL? {
        #if canImport(Darwin)
            return FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
        #else
            return nil
        #endif
    }
}
