import Foundation
import Testing
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// docs/journeys.md's abandoned-cart journey over loopback, on devices running the real SDK: add to cart →
/// wait → reminder → wait → last call, with a purchase (from the app or its backend) ending a run wherever it is.
@Suite struct AbandonedCartJourneyTests {
    /// Everyone shown a push opens it and buys only when told to, so every number is known beforehand.
    static var predictable: DeviceBehaviour {
        var behaviour = DeviceBehaviour()
        behaviour.openProbability = 1
        behaviour.buttonProbability = 0
        behaviour.purchaseProbability = 0
        behaviour.dismissProbability = 0
        behaviour.foregroundProbability = 0
        return behaviour
    }

    @Test func eachStepsNumbersEqualWhatTheDevicesDid() async throws {
        let harness = try await EndToEndHarness(devices: 12, behaviour: Self.predictable)
        do {
            // Devices 0 and 6 never add to cart; 1 and 7 buy at once; 2 and 8 buy in the app after the reminder,
            // 3 through the backend; 4, 5, 9, 10 and 11 never buy.
            let cast = AbandonedCartJourney.Cast.standard(devices: 12)
            #expect(cast.carts == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11])
            let outcome = try await AbandonedCartJourney(driver: harness.driver, fleet: harness.fleet, cast: cast)
                .run(timeout: .seconds(60))
            #expect(outcome.mismatches == [])
            #expect(harness.fleet.failures.isEmpty)
            #expect(outcome.convertedAfterReminder == [2, 3, 8])
            #expect(outcome.neverBought == [4, 5, 9, 10, 11])

            let journeyID = outcome.journeyID
            let remind = "journey:\(journeyID):remind"
            let lastCall = "journey:\(journeyID):last_call"
            // The reminder reached exactly those who had not bought before it was due, the last call only those
            // who never bought, and nothing came after a purchase.
            var shown: [Int: [String]] = [:]
            for device in harness.fleet.devices { shown[device.index] = await device.shownCampaigns }
            for index in [0, 1, 6, 7] { #expect(shown[index] == [], "device \(index)") }
            for index in [2, 3, 8] { #expect(shown[index] == [remind], "device \(index)") }
            for index in [4, 5, 9, 10, 11] { #expect(shown[index] == [remind, lastCall], "device \(index)") }

            let journey = try await harness.call("GET", "/v1/journeys/\(journeyID)")
            #expect(journey.status == 200)
            #expect(journey.json["entered"] == 10)
            #expect(journey.json["active"] == 0)
            // The journey ends at its exit step, so nobody counts as having completed it.
            #expect(journey.json["completed"] == 0)
            #expect(journey.json["exited"] == ["event:purchase": 5, "exit_step": 5])
            let steps = try #require(journey.json["steps"]?.arrayValue)
            #expect(steps.map { $0["id"]?.stringValue ?? "" } == AbandonedCartJourney.stepIDs)
            func step(_ id: String) -> JSONValue { steps.first { $0["id"]?.stringValue == id } ?? .null }
            #expect(step("pause")["entered"] == 10)
            #expect(step("pause")["exited"] == ["event:purchase": 2])
            for (name, value) in [
                ("entered", 8), ("sent", 8), ("skipped", 0), ("delivered", 8), ("opened", 8), ("converted", 3),
            ] {
                #expect(step("remind")[name] == .integer(Int64(value)), "remind.\(name)")
            }
            #expect(step("a_day")["exited"] == ["event:purchase": 3])
            #expect(step("offer")["sent"] == 0)
            for (name, value) in [
                ("entered", 5), ("sent", 5), ("skipped", 0), ("delivered", 5), ("opened", 5), ("converted", 0),
            ] {
                #expect(step("last_call")[name] == .integer(Int64(value)), "last_call.\(name)")
            }
            #expect(step("end")["exited"] == ["exit_step": 5])
            let tally = await harness.fleet.stop()
            #expect(tally.received == 13)
            #expect(tally.opened == 13)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }

    @Test func numbersThatDifferFromTheDevicesAreNamed() {
        let journey: JSONValue = [
            "steps": [
                ["id": "remind", "entered": 3, "sent": 2, "waiting": 0, "exited": ["event:purchase": 1]]
            ]
        ]
        let differences = AbandonedCartJourney.differences(
            journey, expected: [("remind", ["entered": 3, "sent": 3, "waiting": 0]), ("end", ["entered": 0])])
        #expect(
            differences == [
                "remind.sent: tidingsd says 2, the devices 3",
                "remind.exited.event:purchase: tidingsd says 1, the devices none",
                "step end is missing from GET /v1/journeys",
            ])
    }

    @Test func aFleetRefusesAnEventTheSDKRefusesOrADeviceItDoesNotHave() async throws {
        let harness = try await EndToEndHarness(devices: 1)
        do {
            await #expect(throws: DeviceFleetError.self) {
                try await harness.fleet.track("open", onDevice: 0)
            }
            await #expect(
                throws: DeviceFleetError.deviceFailed(index: 1, reason: "there is no such device; the fleet has 1")
            ) {
                try await harness.fleet.track("purchase", onDevice: 1)
            }
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }
}
