import Foundation

extension TidingsClient {
    /// Everything a ``TidingsClient`` (and the extension's ``NotificationServicePipeline``) needs: where to
    /// send, where to keep files, and how to treat pushes. Build it in code or read it from the Info.plist
    /// with ``init(infoPlist:containerResolver:)``.
    ///
    /// ```swift
    /// var configuration = TidingsClient.Configuration(
    ///     appKey: "tk_app_...", serverURL: URL(string: "https://push.example.com")!, containerDirectory: groupURL)
    /// configuration.deepLinks = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com"])
    /// let client = try TidingsClient(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Which APNs environment the device token belongs to.
        public enum Environment: String, Sendable, Hashable, CaseIterable {
            /// Read at launch from the app's provisioning profile (``APNsEnvironment/detect(provisioningProfile:)``:
            /// none means an App Store build, so production); ``TidingsClient/setEnvironment(_:)`` overrides it.
            case automatic
            case sandbox
            case production
        }

        /// How events are batched and when they are sent.
        public struct UploadPolicy: Sendable, Hashable {
            /// The most events in one request.
            public var maximumBatchEvents = EventLimits.default.maximumBatchEvents
            /// The most bytes in one request body.
            public var maximumBatchBytes = EventLimits.default.maximumBatchBytes
            /// A flush starts once this many events wait.
            public var flushThreshold = 50
            /// The periodic flush, after the last one.
            public var flushInterval: Duration = .seconds(30)

            public init() {}
        }

        /// The Notification Service Extension's budget.
        public struct ServiceExtensionPolicy: Sendable, Hashable {
            /// Everything the pipeline does (media included) ends by then; iOS allows about 30 s.
            public var deadline: Duration = .seconds(25)
            /// The best-effort event upload before the content is handed back.
            public var flushBudget: Duration = .seconds(2)

            public init() {}
        }

        /// The app's key (`tk_app_...`), sent with every request.
        public var appKey: String
        /// The `tidingsd` base URL; requests go to `/v1/...` under it.
        public var serverURL: URL
        /// The App Group container shared with the extension.
        public var containerDirectory: URL {
            didSet {
                // The media folder follows the container unless the app chose its own.
                if mediaPolicy.destinationDirectory == oldValue.appendingPathComponent("media") {
                    mediaPolicy.destinationDirectory = containerDirectory.appendingPathComponent("media")
                }
            }
        }
        public var environment = Environment.automatic
        /// How our pushes are shown while the app is in the foreground.
        public var foregroundPresentation = PresentationOptions.standard
        /// Per-push presentation, consulted before ``foregroundPresentation``; nil falls back to it.
        public var presentationOverride: (@Sendable (PushPayload) -> PresentationOptions?)?
        public var badgePolicy = BadgePolicy()
        /// The deep links the SDK opens; others only bring the app forward.
        public var deepLinks = DeepLinkAllowList()
        /// The app's own URL schemes (lowercase), read from `CFBundleURLTypes`: links with them go to the app's
        /// deep-link handler and never to `UIApplication.open`, which would deliver them back to the app.
        public var appURLSchemes: Set<String> = []
        /// Media download limits; files go to `<containerDirectory>/media` unless the app sets another folder.
        public var mediaPolicy: MediaPolicy
        public var upload = UploadPolicy()
        public var serviceExtension = ServiceExtensionPolicy()
        /// Register the APNs token even while alerts are not allowed (silent pushes, provisional apps).
        public var alwaysAllowTokenRegistration = false
        /// Send what the person typed in a reply to analytics; off by default (it may be personal).
        public var sendsReplyTextToAnalytics = false
        /// What ``TidingsClient/automaticIntegration(configuration:performer:)`` installs.
        public var automaticIntegration = AutomaticIntegrationOptions()
        /// The vendor dialects treated as ours, besides the native one.
        public var handledDialects: Set<PushDialect> = Set(PushDialect.allCases)
        public var sdkVersion = TidingsSDK.version
        public var appVersion: String?
        public var osVersion: String?
        public var deviceModel: String?
        /// Where the device context sent with the installation comes from (time zone, language, locale, region,
        /// OS, model, app version and build); read at start and by ``TidingsClient/deviceContextMayHaveChanged()``.
        public var deviceContextProvider: any DeviceContextProvider = SystemDeviceContextProvider()
        /// The keychain access group the installation secret is shared through (`TEAMID.group.com.example.app`);
        /// nil uses the app's default group. Apple platforms only.
        public var keychainAccessGroup: String?
        /// Where the installation secret is kept; nil picks the keychain on Apple platforms and a 0600 file in
        /// the container elsewhere.
        public var secretStore: (any SecretStore)?
        /// The this-device-only marker that detects a container restored from another device; nil picks the
        /// keychain on Apple platforms and none elsewhere.
        public var deviceMarkerStore: (any DeviceMarkerStore)?
        public var logger = Logger.disabled(label: "tidings")
        /// The HTTP seam; URLSession by default.
        public var transport: any HTTPTransport = URLSessionTransport()
        /// The time source for events, retries and expiry.
        public var clock: any TidingsClock = SystemClock()
        /// How ``Environment/automatic`` finds the environment; the main bundle's provisioning profile by
        /// default (tests inject their own).
        public var detectEnvironment: @Sendable () -> APNsEnvironment? = { APNsEnvironment.detect() }

        public init(appKey: String, serverURL: URL, containerDirectory: URL) {
            self.appKey = appKey
            self.serverURL = serverURL
            self.containerDirectory = containerDirectory
            mediaPolicy = MediaPolicy(destinationDirectory: containerDirectory.appendingPathComponent("media"))
        }

        /// The settings of the handler, for the current user.
        func handling(installationID: String, userID: String?) -> NotificationHandler.Configuration {
            var handling = NotificationHandler.Configuration(installationID: installationID)
            handling.userID = userID
            handling.sdkVersion = sdkVersion
            handling.appVersion = appVersion
            handling.osVersion = osVersion
            handling.deviceModel = deviceModel
            handling.foregroundPresentation = foregroundPresentation
            handling.presentationOverride = presentationOverride
            handling.deepLinks = deepLinks
            handling.sendsReplyTextToAnalytics = sendsReplyTextToAnalytics
            handling.handledDialects = handledDialects
            handling.clock = clock
            handling.logger = logger
            return handling
        }

        /// The settings of the uploader.
        var uploading: EventUploader.Configuration {
            var uploading = EventUploader.Configuration(endpoint: serverURL, appKey: appKey)
            uploading.maximumBatchEvents = upload.maximumBatchEvents
            uploading.maximumBatchBytes = upload.maximumBatchBytes
            uploading.flushThreshold = upload.flushThreshold
            uploading.flushInterval = upload.flushInterval
            uploading.sdkVersion = sdkVersion
            uploading.logger = logger
            return uploading
        }

        /// The keychain where there is one, shared through ``keychainAccessGroup``; a file in the container
        /// elsewhere.
        var defaultSecretStore: any SecretStore {
            #if canImport(Security)
                KeychainSecretStore(accessGroup: keychainAccessGroup)
            #else
                FileSecretStore(directory: containerDirectory)
            #endif
        }

        /// The keychain's this-device-only marker where there is a keychain; none elsewhere (a file in the
        /// container would travel with a backup, which is what the marker must not do).
        var defaultDeviceMarkerStore: (any DeviceMarkerStore)? {
            #if canImport(Security)
                KeychainDeviceMarkerStore(accessGroup: keychainAccessGroup)
            #else
                nil
            #endif
        }

        /// The settings of the registrar.
        var registration: InstallationRegistrar.Configuration {
            var registration = InstallationRegistrar.Configuration(
                endpoint: serverURL, appKey: appKey, containerDirectory: containerDirectory)
            registration.alwaysAllowTokenRegistration = alwaysAllowTokenRegistration
            registration.sdkVersion = sdkVersion
            registration.deviceContextProvider = deviceContextProvider
            registration.secretStore = secretStore ?? defaultSecretStore
            registration.deviceMarkerStore = deviceMarkerStore ?? defaultDeviceMarkerStore
            registration.logger = logger
            return registration
        }
    }
}
