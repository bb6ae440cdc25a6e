import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsPostgres
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Split tests that pick their winner: the variants go to a test share, and after the wait the variant that
/// converts best goes to the rest of the audience, decided once, with its numbers, the control group left out.
@Suite struct WinnerSelectionTests {
    static let twoArms: JSONValue = [
        ["id": "a", "weight": 1, "content": ["title": "A"]],
        ["id": "b", "weight": 1, "content": ["title": "B"]],
    ]
    static let campaign = "spring-sale"
    static let hour: Int64 = 3_600_000

    /// A test of `twoArms` with a 10% control on `testShare` of everyone, deciding an hour after its sends.
    static func body(
        testShare: Double = 0.3, confidence: Double? = nil, ifInconclusive: String? = nil,
        extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var winner: [String: JSONValue] = ["test_share": .double(testShare), "after": "1h"]
        if let confidence { winner["confidence"] = .double(confidence) }
        if let ifInconclusive { winner["if_inconclusive"] = .string(ifInconclusive) }
        var body: [String: JSONValue] = [
            "target": ["all": true], "campaign_id": .string(campaign), "variants": twoArms, "control": 0.1,
            "conversion": ["event": "purchase", "within": "24h"], "winner": .object(winner),
        ]
        body.merge(extra) { _, new in new }
        return .object(body)
    }

    /// Where the documented draws put `installation` (no user id) in the test of `campaign`.
    static func arm(_ installation: String, testShare: Double = 0.3) -> (variant: String, tested: Bool) {
        let subject = VariantAssignment.Subject.installation(installation)
        let variant = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.1)
            .variant(splitKey: campaign, subject: subject)
        let tested = WinnerRule(testShare: testShare, afterSeconds: 3600, confidence: 0.95, ifInconclusive: .best)
            .isTested(splitKey: campaign, subject: subject)
        return (variant, tested)
    }

    /// The installations each message was pushed to, and the titles they got, by message id.
    static func pushed(_ provider: RecordingPushProvider) throws -> [String: [String: String]] {
        var byMessage: [String: [String: String]] = [:]
        for push in provider.pushes {
            let payload = try JSONValue.parse(push.payload)
            let id = payload["tidings"]?["id"]?.stringValue ?? ""
            byMessage[id, default: [:]][push.installationID ?? ""] = payload["aps"]?["alert"]?["title"]?.stringValue
        }
        return byMessage
    }

    /// Registers `count` installations and sends the test; returns its id.
    static func startTest(_ fixture: MessageFixture, count: Int, body: JSONValue = body()) async throws -> String {
        for index in 0..<count { try await fixture.register("inst-\(index)", seed: index + 1) }
        let reply = try await fixture.send(body)
        #expect(reply.status == 202, "\(reply.json)")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        return messageID
    }

    /// Purchases half an hour after the send by every `rate`-th recipient of each arm (by `rates[arm]`, a
    /// divisor: 2 converts every second recipient, 10 every tenth).
    static func convert(
        _ fixture: MessageFixture, recipients: [String: String], everyNth rates: [String: Int], at sentAt: Int64
    ) throws {
        var events: [TidingsEvent] = []
        var seen: [String: Int] = [:]
        for (installation, variant) in recipients.sorted(by: { $0.key < $1.key }) {
            let index = seen[variant, default: 0]
            seen[variant] = index + 1
            guard let every = rates[variant], index % every == 0 else { continue }
            events.append(
                TidingsEvent(
                    type: EventType("purchase"), occurredAt: sentAt + hour / 2, installationID: installation))
        }
        _ = try fixture.store.insertEvents(appID: "app_main", events: events, receivedAt: sentAt + hour)
    }

    @Test func aWinnerIsValidatedWithTheFieldNamed() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let valid = Self.body().objectValue ?? [:]
        func without(_ key: String) -> [String: JSONValue] {
            var body = valid
            body[key] = nil
            return body
        }
        func winner(_ fields: [String: JSONValue]) -> [String: JSONValue] {
            var body = valid
            var winner: [String: JSONValue] = ["test_share": 0.2, "after": "4h"]
            winner.merge(fields) { _, new in new }
            body["winner"] = .object(winner.filter { !$0.value.isNull })
            return body
        }
        var oneArm = valid
        oneArm["variants"] = [["id": "a", "content": ["title": "A"]]]
        var noVariants = without("variants")
        noVariants["control"] = nil
        noVariants["content"] = ["title": "x"]
        var notObject = valid
        notObject["winner"] = 0.2
        for (body, field) in [
            (notObject, "winner"), (oneArm, "winner"), (noVariants, "winner"), (without("conversion"), "winner"),
            (winner(["test_share": .null]), "winner.test_share"), (winner(["test_share": 0]), "winner.test_share"),
            (winner(["test_share": 1]), "winner.test_share"), (winner(["test_share": "0.2"]), "winner.test_share"),
            (winner(["after": .null]), "winner.after"), (winner(["after": "30s"]), "winner.after"),
            (winner(["after": "31d"]), "winner.after"), (winner(["after": "4 hours"]), "winner.after"),
            (winner(["confidence": 0.5]), "winner.confidence"), (winner(["confidence": 1]), "winner.confidence"),
            (winner(["confidence": "high"]), "winner.confidence"),
            (winner(["if_inconclusive": "c"]), "winner.if_inconclusive"),
            (winner(["if_inconclusive": "control"]), "winner.if_inconclusive"),
            (winner(["share": 0.2]), "winner.share"),
        ] as [([String: JSONValue], String)] {
            let reply = try await fixture.send(.object(body))
            #expect(reply.status == 400, "\(field): \(reply.json)")
            #expect(reply.errorCode == "invalid_field")
            #expect(reply.errorMessage.hasPrefix(field + ":"), "\(reply.errorMessage)")
        }
        let reply = try await fixture.send(
            .object(winner(["confidence": 0.9, "if_inconclusive": "a", "after": 600])))
        #expect(reply.status == 202, "\(reply.json)")
        let status = try await fixture.status(try #require(reply.json["message_id"]?.stringValue))
        let shown = try #require(status.json["winner"])
        #expect(shown["state"] == "testing")
        #expect(shown["test_share"] == 0.2)
        #expect(shown["after_seconds"] == 600)
        #expect(shown["confidence"] == 0.9)
        #expect(shown["if_inconclusive"] == "a")
    }

    /// 250 installations (each its own token); the test's variants reach only the test share; b converts far better; an hour after
    /// the test's sends the decision sends b to everyone else but the control group, with its numbers kept.
    @Test(arguments: StoreBackend.allCases)
    func aClearWinnerIsSentToTheRestAndTheControlStaysOut(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let count = 250
        let sentAt = fixture.harness.now
        let messageID = try await Self.startTest(fixture, count: count)
        let everyone = (0..<count).map { "inst-\($0)" }
        let arms = Dictionary(uniqueKeysWithValues: everyone.map { ($0, Self.arm($0)) })
        let tested = everyone.filter { arms[$0]!.tested && arms[$0]!.variant != "control" }
        let control = everyone.filter { arms[$0]!.variant == "control" }
        let rest = everyone.filter { !arms[$0]!.tested && arms[$0]!.variant != "control" }
        #expect(!tested.isEmpty && !control.isEmpty && !rest.isEmpty)

        var pushed = try Self.pushed(fixture.provider)
        #expect(Set((pushed[messageID] ?? [:]).keys) == Set(tested), "only the test share gets the variants")
        for installation in tested {
            #expect(pushed[messageID]?[installation] == arms[installation]!.variant.uppercased())
        }
        var status = try await fixture.status(messageID)
        #expect(status.count("targets") == Int64(tested.count + control.count), "the rest is not written")
        #expect(status.skipped("control") == Int64(control.count), "the control group is held back across everyone")
        #expect(status.json["winner"]?["state"] == "testing")
        #expect(status.json["winner"]?["decide_at"] == .integer(sentAt + Self.hour), "an hour after its sends")

        let recipients = Dictionary(uniqueKeysWithValues: (tested + control).map { ($0, arms[$0]!.variant) })
        try Self.convert(fixture, recipients: recipients, everyNth: ["a": 10, "b": 2, "control": 10], at: sentAt)
        let selector = WinnerSelector(store: fixture.store, clock: fixture.clock)
        fixture.clock.advance(by: .seconds(3599))
        #expect(try selector.runDue().isEmpty, "not before its time")
        fixture.clock.advance(by: .seconds(1))
        let followUps = try selector.runDue()
        #expect(followUps.count == 1)
        #expect(try selector.runDue().isEmpty, "decided once")

        status = try await fixture.status(messageID)
        let winner = try #require(status.json["winner"])
        #expect(winner["state"] == "decided")
        #expect(winner["variant"] == "b")
        #expect(winner["significant"] == true)
        #expect(winner["decided_at"] == .integer(sentAt + Self.hour))
        #expect(winner["follow_up_message_id"] == .string(followUps[0]))
        #expect(winner["variants"]?.arrayValue?.map { $0["variant"] } == ["a", "b", "control"])
        for (index, arm) in ["a", "b", "control"].enumerated() {
            let members = recipients.values.filter { $0 == arm }.count
            let every = arm == "b" ? 2 : 10
            let entry = winner["variants"]?[index]
            #expect(entry?["recipients"] == .integer(Int64(members)), "\(arm)")
            #expect(entry?["converted"] == .integer(Int64((members + every - 1) / every)), "\(arm)")
        }
        #expect(winner["lead"]?["versus"] == "a")
        let audit = try fixture.store.auditEntries(beforeSequence: nil, limit: 10)
        #expect(
            audit.contains {
                $0.action == "decide winner" && $0.credential == .server && $0.target == "/v1/messages/\(messageID)"
            })

        let followUp = try await fixture.status(followUps[0])
        #expect(followUp.json["follow_up_of"] == .string(messageID))
        #expect(followUp.json["campaign_id"] == .string(Self.campaign))
        try await CampaignResolver(store: fixture.store, clock: fixture.clock).drain()
        try await fixture.worker().drain()
        pushed = try Self.pushed(fixture.provider)
        #expect(Set((pushed[followUps[0]] ?? [:]).keys) == Set(rest), "the rest, never the tested or the control")
        #expect(Set((pushed[followUps[0]] ?? [:]).values) == ["B"])
        #expect(try await fixture.status(followUps[0]).count("sent") == Int64(rest.count))
    }

    @Test(arguments: StoreBackend.allCases)
    func anInconclusiveTestSendsWhatTheRuleSays(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let sentAt = fixture.harness.now
        let messageID = try await Self.startTest(fixture, count: 120, body: Self.body(ifInconclusive: "a"))
        let recipients = Dictionary(
            uniqueKeysWithValues: (0..<120).map { "inst-\($0)" }.compactMap { id -> (String, String)? in
                let arm = Self.arm(id)
                return arm.tested && arm.variant != "control" ? (id, arm.variant) : nil
            })
        // b converts a little more often than a: not a lead a test of this size can show.
        try Self.convert(fixture, recipients: recipients, everyNth: ["a": 4, "b": 3], at: sentAt)
        fixture.clock.advance(by: .seconds(3600))
        let followUps = try WinnerSelector(store: fixture.store, clock: fixture.clock).runDue()
        #expect(followUps.count == 1)
        let winner = try #require(try await fixture.status(messageID).json["winner"])
        #expect(winner["best"] == "b")
        #expect(winner["significant"] == false)
        #expect(winner["variant"] == "a", "the variant if_inconclusive names")
        #expect(winner["rule"]?.stringValue?.contains("95%") == true)
        try await CampaignResolver(store: fixture.store, clock: fixture.clock).drain()
        try await fixture.worker().drain()
        #expect(Set((try Self.pushed(fixture.provider)[followUps[0]] ?? [:]).values) == ["A"])
    }

    /// Two instances' schedulers on one PostgreSQL database deciding the same tests at once store one
    /// decision and one follow-up each.
    @Test func twoSchedulersOnOneStoreDecideOnce() async throws {
        let fixture = try MessageFixture(backend: .postgres)
        let postgres = try #require(fixture.store as? PostgresStore)
        let second = try PostgresStore(configuration: postgres.configuration)
        var tests: [String] = []
        for index in 0..<40 { try await fixture.register("inst-\(index)", seed: index + 1) }
        for _ in 0..<5 {
            let reply = try await fixture.send(Self.body())
            tests.append(try #require(reply.json["message_id"]?.stringValue))
        }
        fixture.clock.advance(by: .seconds(3600))
        let selectors = [fixture.store, second as any Store].map { WinnerSelector(store: $0, clock: fixture.clock) }
        let followUps = try await withThrowingTaskGroup(of: [String].self) { group in
            for selector in selectors { group.addTask { try selector.runDue() } }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(followUps.count == tests.count, "\(followUps)")
        let messages = try fixture.store.messages(appID: "app_main", query: MessageListQuery(limit: 100))
        #expect(messages.count == tests.count * 2, "each test and one follow-up")
        let audit = try fixture.store.auditEntries(beforeSequence: nil, limit: 100)
        #expect(audit.filter { $0.action == "decide winner" }.count == tests.count)
        for test in tests {
            let decision = try #require(try second.splitDecision(messageID: test))
            #expect(decision.state == .decided)
            #expect(followUps.contains(decision.followUpMessageID ?? ""))
        }
    }

    /// The decision and its follow-up are stored together: an instance that stops right after deciding leaves
    /// the follow-up to any other (or to itself restarted), which resolves and sends it in full.
    @Test(arguments: StoreBackend.allCases)
    func aRestartBetweenTheDecisionAndTheFollowUpsResolutionLosesNothing(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let messageID = try await Self.startTest(fixture, count: 60)
        fixture.clock.advance(by: .seconds(3600))
        let followUp = try #require(try WinnerSelector(store: fixture.store, clock: fixture.clock).runDue().first)
        // Another process on the store: a new store connection on PostgreSQL, new workers on either.
        let store: any Store =
            if let postgres = fixture.store as? PostgresStore {
                try PostgresStore(configuration: postgres.configuration)
            } else {
                fixture.store
            }
        #expect(try store.message(appID: "app_main", messageID: followUp)?.state == .scheduled)
        #expect(try WinnerSelector(store: store, clock: fixture.clock).runDue().isEmpty, "nothing decided twice")
        try await CampaignResolver(store: store, clock: fixture.clock).drain()
        try await FanoutWorker(store: store, provider: fixture.provider, clock: fixture.clock).drain()
        let rest = (0..<60).map { "inst-\($0)" }.filter {
            let arm = Self.arm($0)
            return !arm.tested && arm.variant != "control"
        }
        #expect(Set((try Self.pushed(fixture.provider)[followUp] ?? [:]).keys) == Set(rest))
        #expect(try store.message(appID: "app_main", messageID: followUp)?.state == .done)
        #expect(try store.splitDecision(messageID: messageID)?.state == .decided)
    }

    @Test(arguments: StoreBackend.allCases)
    func cancellingTheTestBeforeItsDecisionCancelsTheDecision(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        for index in 0..<20 { try await fixture.register("inst-\(index)", seed: index + 1) }
        // Scheduled for later: no decision time until its audience is resolved.
        let later = fixture.harness.now / 1000 + 7200
        let reply = try await fixture.send(Self.body(extra: ["send_at": .integer(later)]))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        var winner = try await fixture.status(messageID).json["winner"]
        #expect(winner?["state"] == "testing")
        #expect(winner?["decide_at"] == .null)
        let cancelled = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        #expect(cancelled.status == 200)
        #expect(cancelled.json["winner"]?["state"] == "cancelled")
        fixture.clock.advance(by: .seconds(3 * 3600 + 1))
        try await CampaignResolver(store: fixture.store, clock: fixture.clock).drain()
        #expect(try WinnerSelector(store: fixture.store, clock: fixture.clock).runDue().isEmpty)
        winner = try await fixture.status(messageID).json["winner"]
        #expect(winner?["state"] == "cancelled")
        #expect(winner?["follow_up_message_id"] == .null)
        let messages = try fixture.store.messages(appID: "app_main", query: MessageListQuery(limit: 10))
        #expect(messages.map(\.id) == [messageID], "no follow-up")
    }
}
