import Foundation
import Testing
import Tidings
import TidingsModel
import TidingsTesting

/// Custom attributes in the SDK: checked at the call, kept in the container, sent with the next sync, and
/// removals sent as `null` until the server took them.
@Suite struct InstallationAttributesTests {
    @Test func attributesGoOutWithTheNextSyncAndRemovalsAsNullOnce() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(3))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.setAttribute("first_name", .string("Aiko"))
        try await registrar.setAttribute("orders", .number(3))
        try await registrar.setAttribute("vip", .bool(true))
        try await registrar.setAttribute("signed_up_at", .date(1_798_102_800_000))
        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the first sync did not send")
            return
        }
        #expect(
            try fixture.body(0)["attributes"] == [
                "first_name": "Aiko", "orders": 3, "vip": true, "signed_up_at": ["date": "2026-12-24T09:00:00Z"],
            ])
        #expect(installation.state.attributes["signed_up_at"] == .date(1_798_102_800_000))
        #expect(await registrar.sync() == .unchanged)

        try await registrar.removeAttribute("vip")
        try await registrar.setAttribute("orders", .number(4))
        guard case .sent = await registrar.sync() else {
            Issue.record("the removal was not sent")
            return
        }
        #expect(
            try fixture.body(1)["attributes"] == [
                "first_name": "Aiko", "orders": 4, "vip": nil, "signed_up_at": ["date": "2026-12-24T09:00:00Z"],
            ])
        // Once the server took the removal, nothing is left to send.
        #expect(await registrar.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 2)
        #expect(await registrar.attributes.keys.sorted() == ["first_name", "orders", "signed_up_at"])
    }

    @Test func aChangeMadeOfflineIncludingARemovalSurvivesARestart() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        do {
            let registrar = try fixture.registrar()
            try await registrar.setAttribute("first_name", .string("Aiko"))
            try await registrar.setAttribute("city", .string("Kyoto"))
            await registrar.sync()
            try await registrar.removeAttribute("city")
            try await registrar.setAttribute("first_name", .string("Ai"))
        }
        let relaunched = try fixture.registrar()
        #expect(await relaunched.attributes == ["first_name": .string("Ai")])
        guard case .sent = await relaunched.sync() else {
            Issue.record("the offline change was not sent")
            return
        }
        #expect(try fixture.body(1)["attributes"] == ["first_name": "Ai", "city": nil])
    }

    @Test func removingThenSettingAgainBeforeASyncSendsNoRemoval() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.setAttribute("a", .string("1"))
        await registrar.sync()
        try await registrar.removeAttribute("a")
        try await registrar.setAttribute("a", .string("1"))
        #expect(await registrar.sync() == .unchanged)
        try await registrar.removeAttribute("a")
        try await registrar.setAttribute("a", .string("2"))
        await registrar.sync()
        #expect(try fixture.body(1)["attributes"] == ["a": "2"])
    }

    @Test func attributesOutsideTheLimitsAreRefusedAtTheCallAndChangeNothing() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar { $0.attributeLimits.maximumCount = 2 }
        try await registrar.setAttributes(["a": .number(1), "b": .number(2)])
        let count = await #expect(throws: RegistrationError.self) {
            try await registrar.setAttribute("c", .number(3))
        }
        #expect(count?.code == "invalid_attribute")
        #expect(count?.message.contains("the limit is 2 per installation") == true)
        let key = await #expect(throws: RegistrationError.self) {
            try await registrar.setAttribute("first name", .string("x"))
        }
        #expect(key?.message.contains("A-Z a-z 0-9 _") == true)
        let long = await #expect(throws: RegistrationError.self) {
            try await registrar.setAttribute("a", .string(String(repeating: "x", count: 257)))
        }
        #expect(long?.message.contains("at most 256 bytes") == true)
        // All or nothing: one bad change in a batch leaves every attribute as it was.
        await #expect(throws: RegistrationError.self) {
            try await registrar.setAttributes(["a": .number(10), "b": .number(.infinity)])
        }
        #expect(await registrar.attributes == ["a": .number(1), "b": .number(2)])
        // Replacing a value at the limit is fine.
        try await registrar.setAttributes(["a": nil, "c": .number(3)])
        #expect(await registrar.attributes == ["b": .number(2), "c": .number(3)])
    }

    @Test func anInstallationWithoutAttributesSendsNoAttributesMember() {
        #expect(InstallationState().requestBody()["attributes"] == nil)
        let state = InstallationState(attributes: ["a": .bool(false)])
        #expect(InstallationState(json: state.requestBody()) == state)
    }
}
