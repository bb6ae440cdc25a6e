import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsHTTP

/// Fault injection, storage bounds and long-poll delivery to simulated devices.
@Suite("APNs emulator: faults and delivery")
struct EmulatorDeliveryTests {
    static let token = EmulatorValidationTests.token

    @Test func scriptedOnceFaultAnswersOnceThenAccepts() async throws {
        let harness = EmulatorHarness()
        harness.emulator.script(token: Self.token, status: 410, reason: "Unregistered", times: 1)
        let first = try await harness.push()
        #expect(first.status == 410)
        let body = try JSONValue.parse(first.body)
        #expect(body == ["reason": "Unregistered", "timestamp": .integer(harness.clock.now.millisecondsSince1970)])
        #expect(try await harness.push().status == 200)
    }

    @Test(arguments: [
        (400, "BadDeviceToken"), (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"),
    ])
    func scriptedAlwaysFaultRepeats(status: Int, reason: String) async throws {
        let harness = EmulatorHarness()
        harness.emulator.script(token: Self.token, status: status, reason: reason)
        for _ in 0..<3 {
            let response = try await harness.push()
            #expect(response.status == status)
            #expect(try harness.reason(response) == reason)
        }
        #expect(await harness.emulator.collect(token: Self.token).isEmpty)
        harness.emulator.clearScript(token: Self.token)
        #expect(try await harness.push().status == 200)
    }

    @Test func faultControlRouteScriptsAndValidates() async throws {
        let harness = EmulatorHarness()
        let fault = #"{"token":"\#(Self.token)","status":429,"reason":"TooManyRequests","times":2}"#
        let created = try await harness.handler(
            HTTPRequest(method: "POST", path: "/emulator/faults", body: Data(fault.utf8)))
        #expect(created.status == 204)
        #expect(try await harness.push().status == 429)
        #expect(try await harness.push().status == 429)
        #expect(try await harness.push().status == 200)
        for bad in [
            #"{"token":"x","status":200,"reason":"r"}"#, #"{"token":"x","status":400}"#, "[]",
            #"{"token":"x","status":400,"reason":"r","times":0}"#,
        ] {
            let response = try await harness.handler(
                HTTPRequest(method: "POST", path: "/emulator/faults", body: Data(bad.utf8)))
            #expect(response.status == 400)
        }
    }

    @Test func storageKeepsTheNewestPerToken() async throws {
        let harness = EmulatorHarness(maximumStoredPerToken: 3)
        for index in 0..<5 {
            _ = try await harness.push(body: Data(#"{"n":\#(index)}"#.utf8))
        }
        let received = await harness.emulator.collect(token: Self.token)
        #expect(received.map(\.payload) == [["n": 2], ["n": 3], ["n": 4]])
    }

    @Test func longPollWakesOnArrival() async throws {
        let harness = EmulatorHarness()
        let poll = Task {
            try await harness.handler(
                HTTPRequest(
                    method: "GET", path: "/emulator/devices/\(Self.token)/notifications", query: [("wait", "10")]))
        }
        while harness.clock.sleeperCount == 0 { await Task.yield() }
        #expect(try await harness.push().status == 200)
        let response = try await poll.value
        let notifications = try JSONValue.parse(response.body)["notifications"]?.arrayValue
        #expect(notifications?.count == 1)
        #expect(notifications?.first?["topic"] == .string(EmulatorValidationTests.topic))
        #expect(notifications?.first?["payload"] == ["aps": ["alert": "hi"]])
        // Delivered to the waiter, so nothing is left stored.
        #expect(await harness.emulator.collect(token: Self.token).isEmpty)
    }

    @Test func concurrentPollersEachGetOneArrivalInOrder() async throws {
        let harness = EmulatorHarness()
        let first = Task { await harness.emulator.collect(token: Self.token, wait: .seconds(10)) }
        while harness.clock.sleeperCount < 1 { await Task.yield() }
        let second = Task { await harness.emulator.collect(token: Self.token, wait: .seconds(10)) }
        while harness.clock.sleeperCount < 2 { await Task.yield() }
        _ = try await harness.push(body: Data(#"{"n":1}"#.utf8))
        _ = try await harness.push(body: Data(#"{"n":2}"#.utf8))
        #expect(await first.value.map(\.payload) == [["n": 1]])
        #expect(await second.value.map(\.payload) == [["n": 2]])
        harness.clock.advance(by: .seconds(10))
    }

    @Test func longPollTimeoutReturnsEmpty() async throws {
        let harness = EmulatorHarness()
        let poll = Task { await harness.emulator.collect(token: Self.token, wait: .seconds(5)) }
        while harness.clock.sleeperCount == 0 { await Task.yield() }
        harness.clock.advance(by: .seconds(5))
        #expect(await poll.value.isEmpty)
        // A push after the timeout is stored for the next poll.
        #expect(try await harness.push().status == 200)
        #expect(await harness.emulator.collect(token: Self.token).count == 1)
    }

    @Test func badWaitIsRefused() async throws {
        let harness = EmulatorHarness()
        let response = try await harness.handler(
            HTTPRequest(method: "GET", path: "/emulator/devices/\(Self.token)/notifications", query: [("wait", "soon")])
        )
        #expect(response.status == 400)
    }

    @Test func deviceControlRouteRegistersTopic() async throws {
        let harness = EmulatorHarness()
        let body = #"{"token":"\#(Self.token)","topic":"com.example.other"}"#
        let response = try await harness.handler(
            HTTPRequest(method: "POST", path: "/emulator/devices", body: Data(body.utf8)))
        #expect(response.status == 204)
        #expect(try harness.reason(try await harness.push()) == "DeviceTokenNotForTopic")
    }
}
