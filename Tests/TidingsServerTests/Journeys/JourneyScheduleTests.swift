import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Scheduled entries: each installation enters when its own clock shows the time, once a day, installations
/// without a zone at the journey's fallback zone.
@Suite struct JourneyScheduleTests {
    @Test(arguments: StoreBackend.allCases)
    func everyoneEntersAtNineInTheirOwnZoneOncePerDay(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.messages.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        try await fixture.messages.register("new-york", seed: 2, ["timezone": "America/New_York"])
        try await fixture.messages.register("nowhere", seed: 3, ["timezone": .null])
        try await fixture.messages.register("android", seed: 4, ["timezone": "Asia/Tokyo", "platform": "android"])
        let id = try await fixture.start([
            "name": "Morning digest",
            "trigger": ["schedule": ["every": "day", "at": "09:00", "audience": "platform = ios"]],
            "fallback_time_zone": "Europe/London",
            "steps": [["id": "digest", "type": "send", "message": ["content": ["title": "Good morning"]]]],
        ])
        func tick() async throws -> Int {
            let entered = try fixture.harness.api.journeys.runSchedules()
            try await fixture.settle()
            return entered
        }
        // The harness starts at 2027-01-15 08:00 UTC: 17:00 in Tokyo, 03:00 in New York, 08:00 in London.
        #expect(try await tick() == 0)
        try await fixture.advance(seconds: 16 * 3600)  // 09:00 in Tokyo on the 16th
        #expect(try await tick() == 1)
        #expect(try await tick() == 0, "a second look the same morning enters no one")
        try await fixture.advance(seconds: 9 * 3600)  // 09:00 in London: the zone-less installation
        #expect(try await tick() == 1)
        try await fixture.advance(seconds: 5 * 3600)  // 09:00 in New York
        #expect(try await tick() == 1)
        #expect(fixture.titles == ["Good morning", "Good morning", "Good morning"])
        let tokens = fixture.messages.provider.pushes.map(\.token)
        #expect(Set(tokens).count == 3, "each of the three iOS installations once, the Android one never")
        try await fixture.advance(seconds: 10 * 3600)  // 09:00 in Tokyo on the 17th
        #expect(try await tick() == 1)
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 4)
        #expect(JourneyFixture.step(journey, "digest")["sent"] == 4)
    }

    @Test(arguments: StoreBackend.allCases)
    func aWeeklyScheduleFiresOnItsWeekdayOnly(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.messages.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        _ = try await fixture.start([
            "name": "Monday tips",
            "trigger": ["schedule": ["every": "week", "weekday": "monday", "at": "09:00"]],
            "steps": [["id": "tips", "type": "send", "message": ["content": ["title": "Tips"]]]],
        ])
        // 2027-01-15 is a Friday. Look every hour (within the hour a firing is made up) for ten days.
        var entered = 0
        for _ in 0..<240 {
            fixture.clock.advance(by: .seconds(3600))
            entered += try fixture.harness.api.journeys.runSchedules()
            try fixture.harness.api.journeys.runOnce()
        }
        #expect(entered == 2, "the Mondays 2027-01-18 and 2027-01-25, in Tokyo")
    }
}
