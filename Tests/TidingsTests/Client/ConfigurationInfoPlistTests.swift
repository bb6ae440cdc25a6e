import Foundation
import Testing
import Tidings

/// Reading ``TidingsClient/Configuration`` from an Info.plist-shaped dictionary.
@Suite struct ConfigurationInfoPlistTests {
    typealias Key = TidingsClient.Configuration.InfoPlistKey

    static let group = URL(fileURLWithPath: "/tmp/group.example")
    static func resolver(_ name: String) -> URL? { name == "group.com.example" ? group : nil }

    static var minimal: [String: Any] { [Key.appKey: "tk_app_1", Key.serverURL: "https://push.example.com"] }

    /// A plist value that can be a test argument.
    enum Value: Sendable, CustomStringConvertible {
        case text(String)
        case number(Int)
        case flag(Bool)
        case numbers([Int])
        case texts([String])

        var any: Any {
            switch self {
            case .text(let value): value
            case .number(let value): value
            case .flag(let value): value
            case .numbers(let value): value
            case .texts(let value): value
            }
        }

        var description: String { "\(any)" }
    }

    @Test func readsEveryDocumentedKey() throws {
        let plist: [String: Any] = [
            Key.appKey: "tk_app_1",
            Key.serverURL: "https://push.example.com/base",
            Key.appGroup: "group.com.example",
            Key.environment: "Production",
            Key.badgeUpdatesEnabled: false,
            Key.badgeFollowsInbox: "YES",
            Key.badgeClearsOnLaunch: true,
            Key.alwaysAllowTokenRegistration: true,
            Key.deepLinkSchemes: ["myapp", " other "],
            Key.deepLinkHosts: "example.com, *.shop.example",
            Key.foregroundPresentation: ["banner", "Sound"],
            Key.sendReplyTextToAnalytics: "true",
            Key.handledDialects: ["braze", "moengage"],
            Key.mediaAllowInsecureHTTP: "NO",
            Key.flushThreshold: 10,
            Key.flushIntervalSeconds: "45",
            Key.appVersion: "3.2.1",
            Key.appBuild: "321",
            Key.keychainAccessGroup: "TEAM123.group.com.example",
        ]
        let configuration = try TidingsClient.Configuration(infoPlist: plist, containerResolver: Self.resolver)
        #expect(configuration.appKey == "tk_app_1")
        #expect(configuration.serverURL.absoluteString == "https://push.example.com/base")
        #expect(configuration.containerDirectory == Self.group.appendingPathComponent("Tidings"))
        #expect(configuration.mediaPolicy.destinationDirectory.path.hasPrefix(Self.group.path))
        #expect(configuration.environment == .production)
        #expect(
            configuration.badgePolicy
                == BadgePolicy(updatesEnabled: false, followsInboxUnreadCount: true, clearsOnLaunch: true))
        #expect(configuration.alwaysAllowTokenRegistration)
        #expect(
            configuration.deepLinks
                == DeepLinkAllowList(schemes: ["myapp", "other"], hosts: ["example.com", "*.shop.example"]))
        #expect(configuration.foregroundPresentation == [.banner, .sound])
        #expect(configuration.sendsReplyTextToAnalytics)
        #expect(configuration.handledDialects == [.braze, .moengage])
        #expect(!configuration.mediaPolicy.allowInsecureHTTP)
        #expect(configuration.upload.flushThreshold == 10)
        #expect(configuration.upload.flushInterval == .seconds(45))
        #expect(configuration.appVersion == "3.2.1")
        #expect(configuration.keychainAccessGroup == "TEAM123.group.com.example")
        let context = configuration.deviceContextProvider.currentContext()
        #expect(context.appVersion == "3.2.1")
        #expect(context.appBuild == "321")
    }

    @Test func defaultsWhenOnlyTheRequiredKeysAreSet() throws {
        let configuration = try TidingsClient.Configuration(infoPlist: Self.minimal, containerResolver: Self.resolver)
        #expect(configuration.environment == .automatic)
        #expect(configuration.badgePolicy == BadgePolicy())
        #expect(!configuration.alwaysAllowTokenRegistration)
        #expect(configuration.foregroundPresentation == .standard)
        #expect(configuration.deepLinks == DeepLinkAllowList())
        #expect(configuration.handledDialects == Set(PushDialect.allCases))
        #expect(configuration.containerDirectory.lastPathComponent == "Tidings")
        #expect(configuration.keychainAccessGroup == nil)
        #expect(configuration.secretStore == nil)
        #expect(configuration.deviceContextProvider.currentContext().appBuild == nil)
    }

    @Test(arguments: [Key.appKey, Key.serverURL])
    func missingRequiredKeyFails(_ key: String) {
        var plist = Self.minimal
        plist[key] = nil
        #expect(throws: ConfigurationError(code: .missingKey, key: key, message: Self.requiredMessage(key))) {
            try TidingsClient.Configuration(infoPlist: plist, containerResolver: Self.resolver)
        }
    }

    @Test func emptyAppKeyCountsAsMissing() {
        var plist = Self.minimal
        plist[Key.appKey] = "  "
        #expect(Self.failure(plist)?.code == .missingKey)
    }

    @Test(arguments: [
        (Key.appKey, Value.number(42)),
        (Key.serverURL, .text("ftp://push.example.com")),
        (Key.serverURL, .text("not a url")),
        (Key.environment, .text("staging")),
        (Key.badgeUpdatesEnabled, .text("maybe")),
        (Key.badgeClearsOnLaunch, .number(3)),
        (Key.deepLinkSchemes, .numbers([1, 2])),
        (Key.deepLinkHosts, .number(7)),
        (Key.deepLinkHosts, .flag(true)),
        (Key.foregroundPresentation, .texts(["banner", "fireworks"])),
        (Key.handledDialects, .texts(["pigeon"])),
        (Key.flushThreshold, .number(0)),
        (Key.flushIntervalSeconds, .text("soon")),
    ])
    func wrongTypeOrValueFailsNamingTheKey(_ key: String, _ value: Value) throws {
        var plist = Self.minimal
        plist[key] = value.any
        let error = try #require(Self.failure(plist))
        #expect(error.code == .invalidValue)
        #expect(error.key == key)
        #expect(!error.message.isEmpty)
    }

    @Test func unresolvableAppGroupFails() {
        var plist = Self.minimal
        plist[Key.appGroup] = "group.com.missing"
        let error = Self.failure(plist)
        #expect(error?.code == .appGroupUnavailable)
        #expect(error?.message.contains("group.com.missing") == true)
    }

    @Test func mediaFolderFollowsTheContainerUnlessChosen() {
        var configuration = TidingsClient.Configuration(
            appKey: "k", serverURL: URL(string: "https://push.example.com")!,
            containerDirectory: URL(fileURLWithPath: "/tmp/a"))
        configuration.containerDirectory = URL(fileURLWithPath: "/tmp/b")
        #expect(configuration.mediaPolicy.destinationDirectory.path == "/tmp/b/media")
        configuration.mediaPolicy.destinationDirectory = URL(fileURLWithPath: "/tmp/own")
        configuration.containerDirectory = URL(fileURLWithPath: "/tmp/c")
        #expect(configuration.mediaPolicy.destinationDirectory.path == "/tmp/own")
    }

    static func failure(_ plist: [String: Any]) -> ConfigurationError? {
        do {
            _ = try TidingsClient.Configuration(infoPlist: plist, containerResolver: resolver)
            return nil
        } catch {
            return error
        }
    }

    static func requiredMessage(_ key: String) -> String {
        key == Key.appKey ? "the app key is required" : "the server URL is required"
    }

    /// Issue #34.1: the app's own schemes come from `CFBundleURLTypes`, so the client routes them in the app.
    @Test func theAppsOwnSchemesAreReadFromURLTypes() throws {
        var plist = Self.minimal
        plist[Key.urlTypes] = [
            ["CFBundleURLName": "main", "CFBundleURLSchemes": ["MyApp", "myapp-beta"]], ["CFBundleURLName": "none"],
        ]
        let configuration = try TidingsClient.Configuration(infoPlist: plist, containerResolver: Self.resolver)
        #expect(configuration.appURLSchemes == ["myapp", "myapp-beta"])
    }
}
