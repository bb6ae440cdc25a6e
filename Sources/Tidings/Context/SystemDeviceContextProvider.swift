import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the ``DeviceContext`` from the system: Foundation for the time zone, language, locale, region and
/// OS version, `uname` for the machine identifier, the bundle for the app's versions.
///
/// Works on Apple platforms and Linux without UIKit, so the core reads the same values the app would.
/// The time zone and locale are the auto-updating ones, so a read after `NSSystemTimeZoneDidChange` or
/// `NSCurrentLocaleDidChange` sees the new values.
public struct SystemDeviceContextProvider: DeviceContextProvider {
    /// `CFBundleShortVersionString`.
    public var appVersion: String?
    /// `CFBundleVersion`.
    public var appBuild: String?

    /// A provider with the app's versions given (from the Info.plist the configuration was read from).
    public init(appVersion: String?, appBuild: String?) {
        self.appVersion = appVersion
        self.appBuild = appBuild
    }

    /// A provider reading the app's versions from the main bundle.
    public init() {
        let info = Bundle.main.infoDictionary ?? [:]
        self.init(
            appVersion: info["CFBundleShortVersionString"] as? String, appBuild: info["CFBundleVersion"] as? String)
    }

    public func currentContext() -> DeviceContext {
        let locale = Locale.autoupdatingCurrent
        let machine = Self.machineIdentifier()
        return DeviceContext(
            timezone: Self.nonEmpty(TimeZone.autoupdatingCurrent.identifier),
            language: Locale.preferredLanguages.first.flatMap(Self.languageTag),
            locale: Self.nonEmpty(locale.identifier), country: Self.country(of: locale),
            osName: Self.operatingSystemName(machine: machine), osVersion: Self.operatingSystemVersion(),
            deviceModel: machine, appVersion: appVersion.flatMap(Self.nonEmpty),
            appBuild: appBuild.flatMap(Self.nonEmpty), sdkVersion: TidingsSDK.version)
    }

    /// `identifier` as a BCP 47 tag: `_` becomes `-` and any `@` keywords are dropped (`ja_JP@calendar=…`).
    static func languageTag(_ identifier: String) -> String? {
        let base = identifier.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return nonEmpty(base.replacingOccurrences(of: "_", with: "-"))
    }

    /// The locale's region when it is a two-letter country; UN M.49 areas such as `001` (world) are not one.
    static func country(of locale: Locale) -> String? {
        let code: String?
        #if canImport(Darwin)
            if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) {
                code = locale.region?.identifier
            } else {
                code = locale.regionCode
            }
        #else
            code = locale.region?.identifier
        #endif
        guard let code, code.utf8.count == 2, code.utf8.allSatisfy(isASCIILetter) else { return nil }
        return code.uppercased()
    }

    /// `major.minor`, with `.patch` when it is not 0 (`17.2`, `17.2.1`), as Apple writes versions.
    static func operatingSystemVersion() -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        var text = "\(version.majorVersion).\(version.minorVersion)"
        if version.patchVersion != 0 { text += ".\(version.patchVersion)" }
        return text
    }

    /// The hardware identifier (`iPhone15,2`); in the Simulator the simulated device's, not the Mac's.
    static func machineIdentifier() -> String? {
        if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] {
            return nonEmpty(simulated)
        }
        var system = utsname()
        guard uname(&system) == 0 else { return nil }
        let machine = withUnsafeBytes(of: &system.machine) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return nonEmpty(machine)
    }

    /// The OS name the person would say: an iPad runs iPadOS, an iOS app on a Mac runs on macOS.
    static func operatingSystemName(machine: String?) -> String? {
        #if os(iOS)
            if ProcessInfo.processInfo.isiOSAppOnMac || ProcessInfo.processInfo.isMacCatalystApp { return "macOS" }
            return machine?.hasPrefix("iPad") == true ? "iPadOS" : "iOS"
        #elseif os(macOS)
            return "macOS"
        #elseif os(tvOS)
            return "tvOS"
        #elseif os(watchOS)
            return "watchOS"
        #elseif os(visionOS)
            return "visionOS"
        #elseif os(Linux)
            return "Linux"
        #elseif os(Windows)
            return "Windows"
        #else
            return nil
        #endif
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func nonEmpty(_ text: String) -> String? {
        text.isEmpty ? nil : text
    }
}
