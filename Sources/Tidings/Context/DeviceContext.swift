/// The facts about the device and app the server uses to decide how to send: time zone, language, region,
/// operating system, model and versions.
///
/// Sent with every registration in the body of `PUT /v1/installations/{id}` and again whenever one of them
/// changes. A fact a platform cannot give is nil and goes out as `null`.
///
/// ```swift
/// let context = SystemDeviceContextProvider().currentContext()
/// context.timezone   // "Asia/Tokyo"
/// context.language   // "ja-JP"
/// ```
public struct DeviceContext: Sendable, Hashable {
    /// An IANA time zone id such as `Asia/Tokyo`.
    public var timezone: String?
    /// The person's preferred language as a BCP 47 tag such as `ja-JP`.
    public var language: String?
    /// The current locale's identifier such as `ja_JP`.
    public var locale: String?
    /// The region as a two-letter ISO 3166 code such as `JP`.
    public var country: String?
    /// `iOS`, `iPadOS`, `macOS`, `Linux` ...
    public var osName: String?
    /// For example `17.2.1`.
    public var osVersion: String?
    /// The machine identifier such as `iPhone15,2`.
    public var deviceModel: String?
    /// `CFBundleShortVersionString`.
    public var appVersion: String?
    /// `CFBundleVersion`.
    public var appBuild: String?
    /// The SDK's version, ``TidingsSDK/version`` unless a test says otherwise.
    public var sdkVersion: String?

    public init(
        timezone: String? = nil, language: String? = nil, locale: String? = nil, country: String? = nil,
        osName: String? = nil, osVersion: String? = nil, deviceModel: String? = nil, appVersion: String? = nil,
        appBuild: String? = nil, sdkVersion: String? = TidingsSDK.version
    ) {
        self.timezone = timezone
        self.language = language
        self.locale = locale
        self.country = country
        self.osName = osName
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.sdkVersion = sdkVersion
    }
}
