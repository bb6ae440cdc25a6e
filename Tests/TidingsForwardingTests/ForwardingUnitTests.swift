import Foundation
import Testing
import TidingsCrypto
import TidingsForwarding
import TidingsModel
import TidingsStore

@Suite struct WebhookSignatureTests {
    @Test func hmacMatchesRFC4231TestCase2() {
        let code = HMACSHA256.authenticationCode(
            key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(SHA256Digest.hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.isValid(code, key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
        #expect(!HMACSHA256.isValid(code, key: Array("Jeff".utf8), message: Array("what do ya want for nothing?".utf8)))
    }

    @Test func aSignedBodyVerifiesWithinTheToleranceAndNothingElseDoes() throws {
        let secret = "whsec_test_secret_0123456789"
        let body = Array(#"{"events":[]}"#.utf8)
        let header = WebhookSignature.header(secret: secret, timestamp: 1_800_000_000, body: body)
        #expect(header.hasPrefix("t=1800000000,v1="))
        try WebhookSignature.verify(header: header, secret: secret, body: body, now: 1_800_000_100)

        func failure(_ header: String, secret: String = secret, body: [UInt8] = body, now: Int64 = 1_800_000_000)
            -> String?
        {
            do {
                try WebhookSignature.verify(header: header, secret: secret, body: body, now: now)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(failure(header, body: Array(#"{"events":[1]}"#.utf8))?.contains("does not match") == true)
        #expect(failure(header, secret: "whsec_other_secret_0123456789")?.contains("does not match") == true)
        #expect(failure(header, now: 1_800_000_301)?.contains("at most 300 s") == true)
        #expect(failure("v1=abc")?.contains("no t=") == true)
        #expect(failure("t=1800000000")?.contains("no v1=") == true)
        // A second signature (a rotated secret) is accepted when one of them matches.
        try WebhookSignature.verify(header: header + ",v1=00ff", secret: secret, body: body, now: 1_800_000_000)
    }
}

@Suite struct ForwardingBackoffTests {
    @Test func delaysGrowExponentiallyUpToTheMaximumAndRetryAfterIsAFloor() {
        let backoff = ForwardingBackoff(initial: .seconds(1), maximum: .seconds(60))
        #expect(backoff.delay(attempt: 0, retryAfter: nil, random: 1) == .seconds(1))
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 1) == .seconds(8))
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 0.5) == .seconds(4))
        #expect(backoff.delay(attempt: 30, retryAfter: nil, random: 1) == .seconds(60))
        #expect(backoff.delay(attempt: 0, retryAfter: .seconds(30), random: 0.1) == .seconds(30))
        // A Retry-After far in the future is capped at ten times the maximum.
        #expect(backoff.delay(attempt: 0, retryAfter: .seconds(3600), random: 0) == .seconds(600))
    }

    @Test func statusesSplitIntoRetryableAndPermanent() {
        for status in [408, 429, 500, 502, 503] {
            #expect(ForwardingFailure.classify(status: status, headers: [:], body: []).kind == .retryable)
        }
        for status in [400, 401, 403, 404, 413, 422] {
            #expect(ForwardingFailure.classify(status: status, headers: [:], body: []).kind == .permanent)
        }
        let limited = ForwardingFailure.classify(status: 429, headers: ["retry-after": "7"], body: Array("slow".utf8))
        #expect(limited.retryAfter == .seconds(7))
        #expect(limited.message == "slow")
    }
}

@Suite struct ForwarderSettingsTests {
    func refusal(_ kind: ForwarderRecord.Kind, _ input: [String: JSONValue]) -> String? {
        do {
            _ = try ForwarderSettings.validated(kind: kind, input)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func webhooksNeedHTTPSExceptToLoopbackAndGetAGeneratedSecret() throws {
        let settings = try ForwarderSettings.validated(kind: .webhook, ["url": "https://hooks.example.com/t"])
        let secret = try #require(settings["secret"]?.stringValue)
        #expect(secret.hasPrefix("whsec_") && secret.count > 40)
        _ = try ForwarderSettings.validated(kind: .webhook, ["url": "http://127.0.0.1:9/hook"])
        #expect(refusal(.webhook, ["url": "http://hooks.example.com/t"])?.contains("https://") == true)
        #expect(refusal(.webhook, ["url": "not a url"])?.contains("https://") == true)
        #expect(refusal(.webhook, ["url": "https://a.example", "secret": "short"])?.contains("24") == true)
        #expect(refusal(.webhook, ["url": "https://a.example", "colour": "red"])?.contains("colour") == true)
        let shown = ForwarderSettings.redacted(settings)
        #expect(shown["secret"] == nil && shown["secret_set"] == true && shown["url"] == settings["url"])
    }

    @Test func treasureDataNeedsARegionOrEndpointTableNamesTDAcceptsAndAWriteKey() throws {
        let settings = try ForwarderSettings.validated(
            kind: .treasureData, ["region": "ap01", "database": "mobile", "table": "push_events", "write_key": "1/abc"])
        #expect(ForwarderSettings.redacted(settings)["write_key"] == nil)
        #expect(refusal(.treasureData, ["region": "mars", "database": "d", "table": "t", "write_key": "k"]) != nil)
        #expect(
            refusal(.treasureData, ["region": "us01", "database": "d-b", "table": "t", "write_key": "k"])?.contains(
                "letters, digits and _") == true)
        #expect(
            refusal(.treasureData, ["region": "us01", "database": "d", "table": "t"])?.contains("write_key") == true)
        // It is sent in a header, where a line break would start a field of its own.
        for key in ["1/abc\r\nx-injected: yes", "1/abc\n", "1/a\u{0}bc"] {
            #expect(
                refusal(.treasureData, ["region": "us01", "database": "d", "table": "t", "write_key": .string(key)])?
                    .contains("control characters") == true)
        }
        #expect(
            refusal(
                .treasureData,
                ["region": "us01", "endpoint": "https://x", "database": "d", "table": "t", "write_key": "k"]) != nil)
    }

    @Test func fileDirectoriesStayUnderTheForwardingRoot() throws {
        let settings = try ForwarderSettings.validated(kind: .file, ["directory": "exports/events"])
        #expect(settings["max_file_bytes"] == .integer(64 * 1024 * 1024))
        for directory in ["/etc", "../up", "a/../../b", "./here"] {
            #expect(refusal(.file, ["directory": .string(directory)])?.contains("relative") == true)
        }
        #expect(refusal(.file, ["directory": "d", "max_file_bytes": 10])?.contains("at least 1024") == true)
    }

    @Test func filtersAreCheckedAndNeverDropTheIdempotencyKey() throws {
        let filter = try ForwarderSettings.filter(["event_types": ["open"], "drop_fields": ["user_id"]])
        #expect(filter.eventTypes == ["open"] && filter.droppedFields == ["user_id"] && filter.campaigns.isEmpty)
        #expect(throws: ForwarderConfigurationError.self) {
            try ForwarderSettings.filter(["drop_fields": ["event_id"]])
        }
        #expect(throws: ForwarderConfigurationError.self) { try ForwarderSettings.filter(["event_types": "open"]) }
        #expect(throws: ForwarderConfigurationError.self) { try ForwarderSettings.filter(["colour": []]) }
    }
}

@Suite struct TreasureDataRowTests {
    @Test func rowsHaveTheEnginePushEventsShapeAndDroppedFieldsLeaveInNoForm() {
        let open = StoredEvent(
            sequence: 7,
            event: TidingsEvent(
                type: .linkOpen, occurredAt: 1_800_000_123_456, installationID: "inst-1", platform: "ios",
                userID: "user-9", messageID: "msg_1", campaignID: "spring", value: "https://example.com/p"),
            receivedAt: 1_800_000_200_000)
        let row = TreasureDataRow.row(ForwardingFilter.forwarded([ForwardingEventRow(open)], .init())[0])
        #expect(row["time"] == .integer(1_800_000_123))
        #expect(row["type"] == "link_open" && row["campaign_id"] == "spring" && row["message_id"] == "msg_1")
        #expect(row["platform"] == "ios" && row["user_id"] == "user-9" && row["value"] == "https://example.com/p")
        #expect(row["event_id"] == .string(open.event.eventID.lowercasedString))

        let token = StoredEvent(
            sequence: 8,
            event: TidingsEvent(
                type: .tokenRegister, occurredAt: 1_800_000_000_000, installationID: "inst-2", platform: "android",
                userID: "user-9", token: "fcm-token-1", tokenType: .fcm),
            receivedAt: 1_800_000_000_000)
        let tokenRow = TreasureDataRow.row(ForwardingFilter.forwarded([ForwardingEventRow(token)], .init())[0])
        #expect(tokenRow["fcm_token"] == "fcm-token-1" && tokenRow["type"] == "token_register")
        let withoutPersonalData = TreasureDataRow.row(
            ForwardingFilter.forwarded([ForwardingEventRow(token)], .init(droppedFields: ["user_id", "token"]))[0])
        #expect(
            withoutPersonalData["user_id"] == nil && withoutPersonalData["fcm_token"] == nil
                && withoutPersonalData["platform"] == "android")
    }

    @Test func filtersPassOnlyTheirTypesAndCampaigns() {
        let events = [
            TidingsEvent(type: .open, occurredAt: 1, installationID: "i", campaignID: "a"),
            TidingsEvent(type: .dismiss, occurredAt: 2, installationID: "i", campaignID: "a"),
            TidingsEvent(type: .open, occurredAt: 3, installationID: "i", campaignID: "b"),
            TidingsEvent(type: .open, occurredAt: 4, installationID: "i"),
        ].enumerated().map {
            ForwardingEventRow(StoredEvent(sequence: Int64($0.offset + 1), event: $0.element, receivedAt: 5))
        }
        let passed = ForwardingFilter.forwarded(events, .init(eventTypes: ["open"], campaigns: ["a"]))
        #expect(passed.map(\.row.sequence) == [1])
        #expect(ForwardingFilter.forwarded(events, .init(eventTypes: ["open"])).map(\.row.sequence) == [1, 3, 4])
        #expect(passed[0].fields["received_at"] == .integer(5))
    }
}

@Suite struct ForwardedEventJSONTests {
    /// Events with every field, none, and strings that need escaping.
    static let events: [StoredEvent] = [
        StoredEvent(
            sequence: 1,
            event: TidingsEvent(
                type: .tokenRegister, occurredAt: 1_800_000_000_001, installationID: "inst-1", platform: "android",
                sdkVersion: "2.1.0", appVersion: "5.0 (12)", osVersion: "14", deviceModel: "Pixel 8",
                userID: "user-\"9\"\\x", messageID: "msg_1", campaignID: "spring", dialect: "fcm", source: .app,
                appState: .background, actionID: "reply", value: "line one\nline\ttwo\u{1}", token: "tok-ü-ß",
                tokenType: .fcm, environment: "production", permission: "granted",
                attributes: ["b": .array([.integer(1), .null, .bool(true)]), "a": .object(["x": .double(1.5)])]),
            receivedAt: 1_800_000_000_999),
        StoredEvent(
            sequence: 2, event: TidingsEvent(type: .open, occurredAt: 7, installationID: "i"), receivedAt: 8),
        StoredEvent(
            sequence: 3,
            event: TidingsEvent(type: .linkOpen, occurredAt: 9, installationID: "i", value: "/"), receivedAt: -1),
    ]

    /// What forwarding wrote before it wrote from the row: the wire JSON with `received_at`, keys sorted.
    static func sortedWireJSON(_ stored: StoredEvent, dropping dropped: [String] = []) -> [UInt8] {
        var fields = stored.event.json.objectValue ?? [:]
        fields["received_at"] = .integer(stored.receivedAt)
        for field in dropped { fields[field] = nil }
        return Array(JSONText.data(.object(fields)))
    }

    @Test(arguments: [[], ["user_id", "token", "attributes"], ["received_at", "no_such_field", "action_id", "value"]])
    func eventsWrittenFromTheirRowsAreTheSortedWireJSONByteForByte(_ dropped: [String]) throws {
        for stored in Self.events {
            let event = ForwardingFilter.forwarded([ForwardingEventRow(stored)], .init(droppedFields: dropped))[0]
            var bytes: [UInt8] = []
            event.write(into: &bytes)
            #expect(bytes == Self.sortedWireJSON(stored, dropping: dropped))
            #expect(.object(event.fields) == (try JSONValue.parse(bytes)))
            for field in dropped { #expect(event.fields[field] == nil) }
        }
    }

    @Test func attributesThatAreNotAStoredObjectAreLeftOutAsParsingThemWould() {
        var row = ForwardingEventRow(Self.events[1])
        row.attributesJSON = "{\"a\":"
        var bytes: [UInt8] = []
        ForwardedEvent(row: row).write(into: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"event_id":"\#(row.eventID)","installation_id":"i","occurred_at":7,"platform":"ios","received_at":8,"type":"open"}"#
        )
    }

    @Test func aWebhookBodyCarriesTheBatchAndEveryEventInOrder() throws {
        let events = ForwardingFilter.forwarded(Self.events.map(ForwardingEventRow.init), .init())
        let batch = ForwardingBatch(id: "fwd_1-1-3", forwarderID: "fwd_1", appID: "app \"a\"", events: events)
        let body = WebhookDestination.body(batch)
        let expected = JSONText.data([
            "batch_id": "fwd_1-1-3", "app_id": "app \"a\"", "forwarder_id": "fwd_1",
            "events": .array(Self.events.map { try! JSONValue.parse(Self.sortedWireJSON($0)) }),
        ])
        #expect(body == Array(expected))
        let lines = NDJSONFileDestination.lines(batch).split(separator: UInt8(ascii: "\n"))
        #expect(lines.map(Array.init) == Self.events.map { Self.sortedWireJSON($0) })
    }
}

@Suite struct ForwardingLanesTests {
    /// The sequence numbers `page` gives its first `count` events.
    static func sequences(_ count: Int) -> [Int64] { (1...Int64(count)).map { $0 * 2 } }

    static func page(_ installations: [String], reachedEnd: Bool = true) -> ForwardingEventPage {
        let rows = installations.enumerated().map { index, installation in
            ForwardingEventRow(
                sequence: Int64(index + 1) * 2, receivedAt: 0, eventID: "e\(index)",
                type: index % 5 == 0 ? "dismiss" : "open",
                occurredAt: 0, installationID: installation, platform: "ios")
        }
        return ForwardingEventPage(rows: rows, scannedThrough: Int64(rows.count) * 2 + 1, reachedEnd: reachedEnd)
    }

    @Test func aPageSplitsByInstallationEachBatchInOrderAndTheCursorMovesToItsEnd() {
        let installations = (0..<60).map { "inst-\($0 % 9)" }
        let plan = ForwardingLanes.split(Self.page(installations), filter: .init(), lanes: 4, batchSize: 40)
        #expect(plan.batches.count > 1 && plan.batches.count <= 4)
        #expect(plan.batches.allSatisfy { $0.count <= 40 })
        #expect(plan.through == 121 && plan.reachedEnd)
        // Every event once; each installation in exactly one batch, in sequence order.
        #expect(plan.batches.flatMap { $0.map(\.row.sequence) }.sorted() == Self.sequences(60))
        for batch in plan.batches {
            #expect(batch.map(\.row.sequence) == batch.map(\.row.sequence).sorted())
            let mine = Set(batch.map(\.row.installationID))
            for other in plan.batches where other != batch {
                #expect(mine.isDisjoint(with: other.map(\.row.installationID)))
            }
        }
    }

    @Test func aFullBatchCutsThePageJustBeforeTheEventThatWouldOverfillIt() {
        // One installation fills its batch: the page ends just before its 11th event.
        let plan = ForwardingLanes.split(
            Self.page(Array(repeating: "inst-busy", count: 30)), filter: .init(), lanes: 4, batchSize: 10)
        #expect(plan.batches.map(\.count) == [10])
        #expect(plan.through == 21 && !plan.reachedEnd)
        // One lane: the first batch-size events, cut the same way.
        let single = ForwardingLanes.split(
            Self.page((0..<30).map { "inst-\($0)" }), filter: .init(), lanes: 1, batchSize: 10)
        #expect(single.batches.map(\.count) == [10] && single.through == 21 && !single.reachedEnd)
    }

    @Test func aPageThatFitsOneBatchIsOneBatchAndFilteredOutEventsStillMoveTheCursor() {
        let small = ForwardingLanes.split(
            Self.page((0..<8).map { "inst-\($0)" }, reachedEnd: false), filter: .init(), lanes: 4, batchSize: 10)
        #expect(small.batches.map { $0.map(\.row.sequence) } == [Self.sequences(8)])
        #expect(small.through == 17 && !small.reachedEnd)
        let filtered = ForwardingLanes.split(
            Self.page(["a", "b"]), filter: .init(eventTypes: ["delivery"]), lanes: 4, batchSize: 10)
        #expect(filtered.batches.isEmpty && filtered.through == 5)
        let dismissals = ForwardingLanes.split(
            Self.page((0..<30).map { "inst-\($0)" }), filter: .init(eventTypes: ["dismiss"]), lanes: 4, batchSize: 2)
        #expect(dismissals.batches.flatMap { $0.map(\.row.type) }.allSatisfy { $0 == "dismiss" })
    }
}
