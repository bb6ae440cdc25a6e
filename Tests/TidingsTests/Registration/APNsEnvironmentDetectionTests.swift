import Foundation
import Testing
import Tidings
import TidingsTesting

@Suite struct APNsEnvironmentDetectionTests {
    /// The plist part of a provisioning profile, between the bytes of its CMS envelope.
    static func profile(_ entitlement: String?) -> Data {
        let entry = entitlement.map { "<key>aps-environment</key>\n\t\t<string>\($0)</string>" } ?? ""
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Entitlements</key>
            <dict>\(entry)<key>get-task-allow</key><true/></dict></dict></plist>
            """
        return Data([0x30, 0x80, 0x06, 0x09]) + Data(plist.utf8) + Data([0xA0, 0x82, 0x00])
    }

    @Test func noProfileIsAnAppStoreBuild() {
        #expect(APNsEnvironment.detect(provisioningProfile: nil) == .production)
    }

    @Test func theEntitlementDecides() {
        #expect(APNsEnvironment.detect(provisioningProfile: Self.profile("development")) == .sandbox)
        #expect(APNsEnvironment.detect(provisioningProfile: Self.profile("production")) == .production)
    }

    @Test func aProfileWithoutPushOrWithAnUnknownValueIsUnknown() {
        #expect(APNsEnvironment.detect(provisioningProfile: Self.profile(nil)) == nil)
        #expect(APNsEnvironment.detect(provisioningProfile: Self.profile("staging")) == nil)
        #expect(APNsEnvironment.detect(provisioningProfile: Data([0xFF, 0xFE, 0x00])) == nil)
    }

    @Test func automaticSendsTheDetectedEnvironmentAtLaunch() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        var configuration = fixture.configuration()
        configuration.environment = .automatic
        configuration.detectEnvironment = { .sandbox }
        let client = try TidingsClient(configuration: configuration)
        _ = await client.didFinishLaunching()
        #expect(await client.registrar.desiredState.environment == .sandbox)
    }
}
