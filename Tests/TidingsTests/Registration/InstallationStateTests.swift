import Foundation
import Testing
import Tidings

@Suite struct InstallationStateTests {
    static func sample() throws -> InstallationState {
        InstallationState(
            apnsToken: try DeviceToken.apns(RegistrationFixture.token(0xAB)),
            voipToken: try DeviceToken.voip(RegistrationFixture.token(0xCD)), environment: .sandbox,
            userID: "user-1", consents: .init(notifications: true, ads: false, nightAds: nil),
            permission: .authorized, locale: "ja_JP", country: "JP", timezone: "Asia/Tokyo", appVersion: "1.2",
            sdkVersion: "0.1.0", osVersion: "17.4", deviceModel: "iPhone15,2", language: "ja-JP", osName: "iOS",
            appBuild: "120")
    }

    @Test func bodyNamesEveryFieldWithNullForUnknown() throws {
        let body = InstallationState().requestBody()
        let keys = Set(body.objectValue?.keys.map { $0 } ?? [])
        #expect(
            keys == [
                "platform", "apns_token", "voip_token", "fcm_token", "environment", "user_id", "consents",
                "permission", "locale", "language", "country", "timezone", "app_version", "app_build", "sdk_version",
                "os_name", "os_version", "device_model",
            ])
        #expect(body["platform"] == "ios")
        #expect(body["user_id"] == .null)
        #expect(body["consents"] == ["notifications": nil, "ads": nil, "night_ads": nil])
    }

    @Test func bodyCarriesTheStateInWireForm() throws {
        let body = try Self.sample().requestBody()
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(body["voip_token"]?.stringValue == RegistrationFixture.hex(0xCD))
        #expect(body["environment"] == "sandbox")
        #expect(body["permission"] == "authorized")
        #expect(body["consents"] == ["notifications": true, "ads": false, "night_ads": nil])
        #expect(body["device_model"] == "iPhone15,2")
        #expect(body["language"] == "ja-JP")
        #expect(body["os_name"] == "iOS")
        #expect(body["app_build"] == "120")
    }

    @Test func deviceContextRoundTripsThroughTheState() throws {
        var state = try Self.sample()
        let context = DeviceContext(
            timezone: "Europe/Paris", language: "fr-FR", locale: "fr_FR", country: "FR", osName: "iPadOS",
            osVersion: "17.2.1", deviceModel: "iPad14,1", appVersion: "2.0", appBuild: "200", sdkVersion: "0.2.0")
        state.apply(context)
        #expect(state.deviceContext == context)
        // The rest of the state is not the context's to change.
        #expect(state.userID == "user-1")
        #expect(state.permission == .authorized)
    }

    @Test func withoutAlertTokensOnlyTheVoIPTokenIsSent() throws {
        var state = try Self.sample()
        state.fcmToken = try DeviceToken.fcm("fcm-token")
        let body = state.requestBody(includingAlertTokens: false)
        #expect(body["apns_token"] == .null)
        #expect(body["fcm_token"] == .null)
        #expect(body["voip_token"]?.stringValue == RegistrationFixture.hex(0xCD))
    }

    @Test func stateSurvivesItsOwnJSON() throws {
        let state = try Self.sample()
        #expect(InstallationState(json: state.requestBody()) == state)
    }

    @Test func unreadableFieldsReadAsUnknown() {
        let state = InstallationState(json: [
            "apns_token": "not-hex", "permission": "maybe", "environment": 3, "consents": ["ads": "yes"],
        ])
        #expect(state.apnsToken == nil)
        #expect(state.permission == nil)
        #expect(state.environment == nil)
        #expect(state.consents.ads == nil)
        #expect(state.platform == "ios")
    }

    @Test func fingerprintIsStableAndSeesEveryChange() throws {
        let state = try Self.sample()
        let fingerprint = InstallationState.fingerprint(of: state.requestBody())
        #expect(fingerprint.count == 16)
        #expect(fingerprint == InstallationState.fingerprint(of: try Self.sample().requestBody()))
        var changes: [InstallationState] = []
        for change in [
            { (s: inout InstallationState) in s.userID = nil }, { $0.consents.nightAds = false },
            { $0.permission = .denied }, { $0.timezone = "Europe/Paris" }, { $0.appVersion = "1.3" },
            { $0.language = "en-GB" }, { $0.osName = "iPadOS" }, { $0.appBuild = "121" },
            { $0.apnsToken = try? DeviceToken.apns(RegistrationFixture.token(0x01)) },
        ] {
            var changed = state
            change(&changed)
            changes.append(changed)
        }
        let fingerprints = Set(changes.map { InstallationState.fingerprint(of: $0.requestBody()) })
        #expect(fingerprints.count == changes.count)
        #expect(!fingerprints.contains(fingerprint))
    }
}
