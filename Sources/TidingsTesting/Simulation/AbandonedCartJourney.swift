import Foundation
import Tidings
import TidingsModel

/// docs/journeys.md's abandoned-cart journey played on a simulated fleet, with its waits shortened: some people
/// add to cart, some buy before the reminder is due, some after it (through the app, or through the app's
/// backend with `POST /v1/users/{id}/events`), the rest never. Then tidingsd's numbers for each step beside what
/// the devices received and did.
///
/// ```swift
/// let journey = AbandonedCartJourney(driver: driver, fleet: fleet, cast: .standard(devices: 12))
/// let outcome = try await journey.run(timeout: .seconds(30))
/// // outcome.mismatches is empty when every step's numbers equal what the devices did
/// ```
public struct AbandonedCartJourney: Sendable {
    /// Who does what, by device index.
    public struct Cast: Sendable, Hashable {
        /// The people who add to cart; the fleet's other devices do nothing.
        public var carts: [Int]
        /// Of them, those who buy at once, before the reminder is due.
        public var early: Set<Int>
        /// Of them, those whose app tracks a purchase as soon as the reminder has arrived.
        public var buyersAfterReminder: Set<Int>
        /// One who buys after the reminder through the app's backend instead of the app.
        public var backendBuyer: Int?

        public init(carts: [Int], early: Set<Int>, buyersAfterReminder: Set<Int>, backendBuyer: Int?) {
            self.carts = carts
            self.early = early
            self.buyersAfterReminder = buyersAfterReminder
            self.backendBuyer = backendBuyer
        }

        /// Of every six devices among the first `devices` (at most `limit`): one never adds to cart, one buys
        /// at once, one buys after the reminder, the first fourth of six buys through the backend, the rest wait.
        public static func standard(devices: Int, limit: Int = 24) -> Cast {
            let indices = Array(0..<min(devices, limit))
            let carts = indices.filter { $0 % 6 != 0 }
            return Cast(
                carts: carts, early: Set(carts.filter { $0 % 6 == 1 }),
                buyersAfterReminder: Set(carts.filter { $0 % 6 == 2 }), backendBuyer: carts.first { $0 % 6 == 3 })
        }
    }

    /// What happened: tidingsd's journey, what it must equal, and every difference.
    public struct Outcome: Sendable {
        public var journeyID: String
        /// `GET /v1/journeys/{id}` as last answered.
        public var journey: JSONValue
        /// Each step's numbers as the devices make them, by step id, in the journey's order.
        public var expectedSteps: [(id: String, numbers: [String: Int64])]
        /// The people who bought after the reminder (through the app, a tap or the backend).
        public var convertedAfterReminder: Set<Int>
        /// The people who never bought.
        public var neverBought: Set<Int>
        /// Each way tidingsd's numbers or the pushes the devices got differ from what should be.
        public var mismatches: [String]
    }

    /// The journey's steps, in order.
    public static let stepIDs = ["pause", "remind", "a_day", "vip", "offer", "last_call", "end"]
    /// Seconds before the reminder and between the reminder and the last call.
    public static let pauseSeconds = 2
    public static let lastCallSeconds = 4

    public let driver: CampaignDriver
    public let fleet: DeviceFleet
    public let cast: Cast

    public init(driver: CampaignDriver, fleet: DeviceFleet, cast: Cast) {
        self.driver = driver
        self.fleet = fleet
        self.cast = cast
    }

    /// docs/journeys.md's journey with waits of `pause` and `lastCall` seconds instead of an hour and a day.
    public static func definition(pause: Int = pauseSeconds, lastCall: Int = lastCallSeconds) -> JSONValue {
        [
            "name": "Abandoned cart",
            "trigger": ["event": "add_to_cart"],
            "entry": ["rule": "once_every", "days": 7],
            "exit": [["event": "purchase"]],
            "steps": [
                ["id": "pause", "type": "wait", "duration": .integer(Int64(pause))],
                [
                    "id": "remind", "type": "send",
                    "message": ["content": ["title": "Still thinking about it?", "body": "Your cart is waiting."]],
                ],
                ["id": "a_day", "type": "wait", "duration": .integer(Int64(lastCall))],
                ["id": "vip", "type": "branch", "audience": "tag:vip", "then": "offer", "else": "last_call"],
                [
                    "id": "offer", "type": "send", "next": "end",
                    "message": ["content": ["title": "10% off, just for you"]],
                ],
                [
                    "id": "last_call", "type": "send",
                    "message": ["content": ["title": "Last call", "body": "Your cart expires tonight."]],
                ],
                ["id": "end", "type": "exit"],
            ],
        ]
    }

    /// Creates and starts the journey, plays the cast on the fleet (which must be started) and waits until
    /// tidingsd's numbers equal what the devices did, or `timeout` passes.
    /// - Throws: ``DeviceFleetError`` when tidingsd refuses a call, a device fails, or a push the journey owes
    ///   does not arrive in time; numbers that differ are in ``Outcome/mismatches``, not thrown.
    public func run(timeout: Duration) async throws(DeviceFleetError) -> Outcome {
        let deadline = ContinuousClock.now + timeout
        let created = try await driver.call("POST", "/v1/journeys", body: Self.definition())
        guard let journeyID = created["journey_id"]?.stringValue else {
            throw .serverFailed("POST /v1/journeys answered no journey_id")
        }
        _ = try await driver.call("POST", "/v1/journeys/\(journeyID)/start", body: nil)
        let remind = "journey:\(journeyID):remind"
        let lastCall = "journey:\(journeyID):last_call"

        try await forEach(cast.carts) { [fleet] (index: Int) async throws(DeviceFleetError) in
            try await fleet.track("add_to_cart", value: "cart-\(index)", onDevice: index)
        }
        // The early buyers buy once they are waiting for the reminder, so their exit is counted at that wait.
        try await waitUntilWaiting(cast.carts.count, at: "pause", journeyID: journeyID, deadline: deadline)
        try await forEach(cast.early.sorted()) { [fleet] (index: Int) async throws(DeviceFleetError) in
            try await fleet.track("purchase", value: "order-\(index)", onDevice: index)
        }
        let reminded = cast.carts.filter { !cast.early.contains($0) }
        var buyers = cast.buyersAfterReminder
        if let backendBuyer = cast.backendBuyer { buyers.insert(backendBuyer) }
        // Each buys as soon as the reminder is on their phone, well before the last call is due.
        var waitingToBuy = buyers.intersection(reminded)
        while !waitingToBuy.isEmpty {
            for index in waitingToBuy.sorted() {
                guard await shown(remind, on: index) else { continue }
                waitingToBuy.remove(index)
                if index == cast.backendBuyer {
                    let userID = fleet.devices[index].userID
                    _ = try await driver.call(
                        "POST", "/v1/users/\(userID)/events",
                        body: ["type": "purchase", "value": .string("order-\(index)")])
                } else {
                    try await fleet.track("purchase", value: "order-\(index)", onDevice: index)
                }
            }
            if waitingToBuy.isEmpty { break }
            try await pause(until: deadline, waitingFor: "the reminder on devices \(waitingToBuy.sorted())")
        }
        try await waitUntil(reminded, show: remind, deadline: deadline)
        await fleet.settle()

        var converted = buyers.intersection(reminded)
        // People the reminder's tap brought into the app may have bought there too.
        for index in reminded {
            if await tally(remind, on: index).purchases > 0 { converted.insert(index) }
        }
        let neverBought = Set(reminded).subtracting(converted)
        try await waitUntil(neverBought.sorted(), show: lastCall, deadline: deadline)
        await fleet.settle()

        let expected = await expectedSteps(
            remind: remind, lastCall: lastCall, reminded: reminded.count, converted: converted.count,
            never: neverBought.count)
        var journey: JSONValue = .null
        var mismatches: [String] = []
        while true {
            journey = try await driver.call("GET", "/v1/journeys/\(journeyID)", body: nil)
            mismatches =
                Self.differences(journey, expected: expected)
                + Self.differences(
                    journeyTotalsOf: journey, entered: cast.carts.count, bought: cast.early.count + converted.count,
                    neverBought: neverBought.count)
            if mismatches.isEmpty || ContinuousClock.now >= deadline { break }
            await fleet.flushPending()
            try? await Task.sleep(for: .milliseconds(200))
        }
        await fleet.settle()
        mismatches += await pushesAfterBuying(journeyID: journeyID, neverBought: neverBought)
        return Outcome(
            journeyID: journeyID, journey: journey, expectedSteps: expected, convertedAfterReminder: converted,
            neverBought: neverBought, mismatches: mismatches)
    }

    /// Each step's numbers: who reached it follows from the cast, what arrived and was opened from the devices.
    func expectedSteps(remind: String, lastCall: String, reminded: Int, converted: Int, never: Int) async
        -> [(id: String, numbers: [String: Int64])]
    {
        let reminderTally = await total(remind)
        let lastCallTally = await total(lastCall)
        func send(entered: Int, _ tally: FleetTally, converted: Int) -> [String: Int64] {
            [
                "entered": Int64(entered), "sent": Int64(tally.received - tally.repeats),
                "skipped": Int64(entered - (tally.received - tally.repeats)), "delivered": Int64(tally.delivered),
                "opened": Int64(tally.opened + tally.buttonOpens), "converted": Int64(converted),
            ]
        }
        let steps: [(id: String, numbers: [String: Int64])] = [
            ("pause", ["entered": Int64(cast.carts.count), "exited:event:purchase": Int64(cast.early.count)]),
            ("remind", send(entered: reminded, reminderTally, converted: converted)),
            ("a_day", ["entered": Int64(reminded), "exited:event:purchase": Int64(converted)]),
            ("vip", ["entered": Int64(never)]),
            ("offer", send(entered: 0, FleetTally(), converted: 0)),
            ("last_call", send(entered: never, lastCallTally, converted: 0)),
            ("end", ["entered": Int64(never), "exited:exit_step": Int64(never)]),
        ]
        // Nobody is left at any step.
        return steps.map { ($0.id, $0.numbers.merging(["waiting": 0]) { given, _ in given }) }
    }

    /// Where a step's numbers in `journey` differ from `expected`; `exited:REASON` names one of its exits.
    public static func differences(_ journey: JSONValue, expected: [(id: String, numbers: [String: Int64])]) -> [String]
    {
        let steps = journey["steps"]?.arrayValue ?? []
        var found: [String] = []
        for (id, numbers) in expected {
            guard let step = steps.first(where: { $0["id"]?.stringValue == id }) else {
                found.append("step \(id) is missing from GET /v1/journeys")
                continue
            }
            for (name, value) in numbers.sorted(by: { $0.key < $1.key }) {
                let actual =
                    name.hasPrefix("exited:")
                    ? step["exited"]?[String(name.dropFirst(7))]?.integerValue ?? 0 : step[name]?.integerValue
                if actual != value {
                    found.append(
                        "\(id).\(name): tidingsd says \(actual.map(String.init) ?? "nothing"), the devices \(value)")
                }
            }
            let exits = step["exited"]?.objectValue ?? [:]
            for reason in exits.keys.sorted() where numbers["exited:\(reason)"] == nil {
                found.append(
                    "\(id).exited.\(reason): tidingsd says \(exits[reason]?.integerValue ?? 0), the devices none")
            }
        }
        return found
    }

    /// Where the journey's own totals differ: everyone who added to cart entered and has left, by buying or at
    /// the exit step.
    static func differences(journeyTotalsOf journey: JSONValue, entered: Int, bought: Int, neverBought: Int)
        -> [String]
    {
        let expected: [(String, JSONValue?, Int)] = [
            ("entered", journey["entered"], entered), ("active", journey["active"], 0),
            ("completed", journey["completed"], 0),
            ("exited.event:purchase", journey["exited"]?["event:purchase"], bought),
            ("exited.exit_step", journey["exited"]?["exit_step"], neverBought),
        ]
        return expected.compactMap { name, actual, value in
            (actual?.integerValue ?? 0) == Int64(value)
                ? nil
                : "journey.\(name): tidingsd says \(actual?.integerValue.map(String.init) ?? "nothing"), the devices \(value)"
        }
    }

    /// Waits until `count` people are waiting at step `stepID`.
    func waitUntilWaiting(_ count: Int, at stepID: String, journeyID: String, deadline: ContinuousClock.Instant)
        async throws(DeviceFleetError)
    {
        while true {
            let journey = try await driver.call("GET", "/v1/journeys/\(journeyID)", body: nil)
            let step = journey["steps"]?.arrayValue?.first { $0["id"]?.stringValue == stepID }
            let waiting = step?["waiting"]?.integerValue ?? 0
            if waiting >= count { return }
            try await pause(until: deadline, waitingFor: "\(count) people waiting at \(stepID); \(waiting) are")
        }
    }

    /// Pushes that reached someone the journey owed nothing: before adding to cart, or after buying.
    func pushesAfterBuying(journeyID: String, neverBought: Set<Int>) async -> [String] {
        let remind = "journey:\(journeyID):remind"
        let lastCall = "journey:\(journeyID):last_call"
        var found: [String] = []
        for device in fleet.devices {
            let journeyPushes = await device.shownCampaigns.filter { $0.hasPrefix("journey:\(journeyID):") }
            let owed: [String]
            if !cast.carts.contains(device.index) || cast.early.contains(device.index) {
                owed = []
            } else if neverBought.contains(device.index) {
                owed = [remind, lastCall]
            } else {
                owed = [remind]
            }
            if journeyPushes != owed {
                found.append("device \(device.index) was shown \(journeyPushes), expected \(owed)")
            }
        }
        return found
    }

    func shown(_ campaignID: String, on index: Int) async -> Bool {
        await fleet.devices[index].shownCampaigns.contains(campaignID)
    }

    func tally(_ campaignID: String, on index: Int) async -> FleetTally {
        await fleet.devices[index].tallyByCampaign[campaignID] ?? FleetTally()
    }

    /// What every device received and did for one campaign.
    func total(_ campaignID: String) async -> FleetTally {
        var total = FleetTally()
        for device in fleet.devices { total.add(await tally(campaignID, on: device.index)) }
        return total
    }

    func waitUntil(_ indices: [Int], show campaignID: String, deadline: ContinuousClock.Instant)
        async throws(DeviceFleetError)
    {
        while true {
            var missing: [Int] = []
            for index in indices {
                if await !shown(campaignID, on: index) { missing.append(index) }
            }
            if missing.isEmpty { return }
            try await pause(until: deadline, waitingFor: "\(campaignID) on devices \(missing)")
        }
    }

    func pause(until deadline: ContinuousClock.Instant, waitingFor what: String) async throws(DeviceFleetError) {
        guard ContinuousClock.now < deadline else { throw .timedOut("still waiting for \(what)") }
        if let failure = fleet.failures.first {
            throw .deviceFailed(index: failure.deviceIndex, reason: failure.message)
        }
        try? await Task.sleep(for: .milliseconds(50))
    }

    /// Runs `body` for every index at once, throwing the first failure after all have finished.
    func forEach(_ indices: [Int], _ body: @escaping @Sendable (Int) async throws(DeviceFleetError) -> Void)
        async throws(DeviceFleetError)
    {
        let failure = await withTaskGroup(of: DeviceFleetError?.self) { group -> DeviceFleetError? in
            for index in indices {
                group.addTask {
                    do throws(DeviceFleetError) {
                        try await body(index)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            var first: DeviceFleetError?
            for await result in group { first = first ?? result }
            return first
        }
        if let failure { throw failure }
    }
}
