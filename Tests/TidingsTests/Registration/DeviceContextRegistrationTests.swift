import Foundation
import Testing
import Tidings
import TidingsTesting

/// The device context (time zone, language, locale, OS, model, versions) in the installation body.
@Suite struct DeviceContextRegistrationTests {
    static let tokyo = DeviceContext(
        timezone: "Asia/Tokyo", language: "ja-JP", locale: "ja_JP", country: "JP", osName: "iOS",
        osVersion: "17.2.1", deviceModel: "iPhone15,2", appVersion: "2.3", appBuild: "230", sdkVersion: "0.1.0")

    @Test func contextReachesThePutBody() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        let provider = FixedDeviceContextProvider(Self.tokyo)
        let registrar = try fixture.registrar { $0.deviceContextProvider = provider }
        await registrar.setPermission(.provisional)
        guard case .sent = await registrar.sync() else {
            Issue.record("the first sync did not send")
            return
        }
        let body = try fixture.body(0)
        #expect(body["timezone"] == "Asia/Tokyo")
        #expect(body["language"] == "ja-JP")
        #expect(body["locale"] == "ja_JP")
        #expect(body["country"] == "JP")
        #expect(body["os_name"] == "iOS")
        #expect(body["os_version"] == "17.2.1")
        #expect(body["device_model"] == "iPhone15,2")
        #expect(body["app_version"] == "2.3")
        #expect(body["app_build"] == "230")
        #expect(body["sdk_version"] == "0.1.0")
        #expect(body["permission"] == "provisional")
    }

    @Test func changedTimeZoneRegistersExactlyOnce() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let provider = FixedDeviceContextProvider(Self.tokyo)
        let registrar = try fixture.registrar { $0.deviceContextProvider = provider }
        await registrar.sync()

        provider.context.timezone = "Europe/Paris"
        #expect(await registrar.refreshDeviceContext())
        guard case .sent = await registrar.sync() else {
            Issue.record("the new time zone was not sent")
            return
        }
        #expect(await !registrar.refreshDeviceContext())
        #expect(await registrar.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 2)
        #expect(try fixture.body(1)["timezone"] == "Europe/Paris")
        #expect(try fixture.body(1)["language"] == "ja-JP")
    }

    @Test func unchangedContextSendsNothing() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        let provider = FixedDeviceContextProvider(Self.tokyo)
        let registrar = try fixture.registrar { $0.deviceContextProvider = provider }
        await registrar.sync()
        #expect(await !registrar.refreshDeviceContext())
        #expect(await registrar.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 1)
    }

    @Test func everyLaunchReadsTheContextAndOnlyAChangeIsSent() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let provider = FixedDeviceContextProvider(Self.tokyo)
        await (try fixture.registrar { $0.deviceContextProvider = provider }).sync()

        // Launched again on the same device: nothing new to say.
        let same = try fixture.registrar { $0.deviceContextProvider = provider }
        #expect(await same.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 1)

        // Launched after the person changed the language and the app was updated: one registration.
        provider.context.language = "en-GB"
        provider.context.appBuild = "231"
        let changed = try fixture.registrar { $0.deviceContextProvider = provider }
        guard case .sent = await changed.sync() else {
            Issue.record("the changed context was not sent")
            return
        }
        #expect(await changed.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 2)
        let body = try fixture.body(1)
        #expect(body["language"] == "en-GB")
        #expect(body["app_build"] == "231")
    }

    @Test func factsAPlatformLacksAreNull() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let provider = FixedDeviceContextProvider(DeviceContext(timezone: "Etc/UTC", osName: "Linux"))
        let registrar = try fixture.registrar { $0.deviceContextProvider = provider }
        await registrar.sync()
        let body = try fixture.body(0)
        for field in ["language", "locale", "country", "os_version", "device_model", "app_version", "app_build"] {
            #expect(body[field] == .null, "\(field) should be null")
        }
        #expect(body["timezone"] == "Etc/UTC")
        #expect(body["os_name"] == "Linux")
        #expect(body["sdk_version"]?.stringValue == TidingsSDK.version)

        // A fact the device stops reporting is cleared, not left stale on the server.
        provider.context = Self.tokyo
        provider.context.country = nil
        #expect(await registrar.refreshDeviceContext())
        await registrar.sync()
        #expect(try fixture.body(1)["country"] == .null)
        #expect(try fixture.body(1)["locale"] == "ja_JP")
    }

    @Test func withoutAProviderTheFieldsAreTheAppsToSet() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        #expect(await !registrar.refreshDeviceContext())
        await registrar.update { $0.language = "fr-CA" }
        await registrar.sync()
        #expect(try fixture.body(0)["language"] == "fr-CA")
        #expect(try fixture.body(0)["timezone"] == .null)
    }
}
