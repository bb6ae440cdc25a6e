import Foundation
import Testing

@testable import Tidings

@Suite struct SystemDeviceContextProviderTests {
    @Test(arguments: [
        ("ja_JP", "ja-JP"), ("en-US", "en-US"), ("zh_Hant_TW", "zh-Hant-TW"), ("ja_JP@calendar=japanese", "ja-JP"),
        ("fr", "fr"),
    ])
    func languageIsABCP47Tag(identifier: String, tag: String) {
        #expect(SystemDeviceContextProvider.languageTag(identifier) == tag)
    }

    @Test func emptyLanguageIsUnknown() {
        #expect(SystemDeviceContextProvider.languageTag("") == nil)
        #expect(SystemDeviceContextProvider.languageTag("@calendar=japanese") == nil)
    }

    @Test(arguments: [("ja_JP", "JP"), ("en_001", nil), ("fr", nil), ("pt_br", "BR")] as [(String, String?)])
    func countryIsATwoLetterRegion(locale: String, country: String?) {
        #expect(SystemDeviceContextProvider.country(of: Locale(identifier: locale)) == country)
    }

    @Test func readsThisMachine() {
        let context = SystemDeviceContextProvider(appVersion: "4.5", appBuild: "450").currentContext()
        #expect(context.timezone == TimeZone.autoupdatingCurrent.identifier)
        #expect(context.sdkVersion == TidingsSDK.version)
        #expect(context.appVersion == "4.5")
        #expect(context.appBuild == "450")
        #expect(context.osVersion?.split(separator: ".").count ?? 0 >= 2)
        #expect(context.deviceModel?.isEmpty == false)
        #if os(Linux)
            #expect(context.osName == "Linux")
        #endif
        if let country = context.country { #expect(country.count == 2 && country == country.uppercased()) }
        if let language = context.language { #expect(!language.contains("_")) }
    }

    @Test func emptyVersionsAreUnknown() {
        let context = SystemDeviceContextProvider(appVersion: "", appBuild: nil).currentContext()
        #expect(context.appVersion == nil)
        #expect(context.appBuild == nil)
    }

    @Test(arguments: ["iPad14,1", "iPhone15,2", "x86_64"])
    func operatingSystemNameIsThePlatforms(machine: String) {
        let name = SystemDeviceContextProvider.operatingSystemName(machine: machine)
        #if os(Linux)
            #expect(name == "Linux")
        #elseif os(macOS)
            #expect(name == "macOS")
        #elseif os(iOS)
            // An iPad runs iPadOS; an iOS app on a Mac says macOS.
            if !ProcessInfo.processInfo.isiOSAppOnMac, !ProcessInfo.processInfo.isMacCatalystApp {
                #expect(name == (machine.hasPrefix("iPad") ? "iPadOS" : "iOS"))
            }
        #endif
    }
}
