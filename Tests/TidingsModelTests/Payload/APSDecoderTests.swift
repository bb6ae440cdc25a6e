import Testing
import TidingsModel

/// Apple's `aps` dictionary, as every dialect reads it.
@Suite struct APSDecoderTests {
    @Test func alertAsAStringIsTheBody() throws {
        let payload = try decodePayload(#"{"aps": {"alert": "Hello"}}"#)
        #expect(payload.alert == PushAlert(body: "Hello"))
    }

    @Test func alertDictionaryWithEveryDocumentedKey() throws {
        let payload = try decodePayload(
            """
            {"aps": {"alert": {"title": "T", "subtitle": "S", "body": "B", "launch-image": "L.png",
              "title-loc-key": "TK", "title-loc-args": ["a"], "subtitle-loc-key": "SK", "subtitle-loc-args": ["b", 2],
              "loc-key": "K", "loc-args": ["c"], "summary-arg": "x"}}}
            """)
        #expect(
            payload.alert
                == PushAlert(
                    title: "T", subtitle: "S", body: "B", titleLocKey: "TK", titleLocArgs: ["a"], subtitleLocKey: "SK",
                    subtitleLocArgs: ["b", "2"], locKey: "K", locArgs: ["c"], launchImage: "L.png"))
        #expect(payload.unrecognized == ["aps": ["alert": ["summary-arg": "x"]]])
    }

    @Test(arguments: [
        (#""sound": "default""#, PushSound.default as PushSound?),
        (
            #""sound": {"critical": 1, "name": "alarm.caf", "volume": 0.8}"#,
            PushSound(name: "alarm.caf", isCritical: true, volume: 0.8)
        ),
        (
            #""sound": {"critical": "true", "name": "a.caf", "volume": "1"}"#,
            PushSound(name: "a.caf", isCritical: true, volume: 1)
        ),
        (#""sound": {"critical": 1}"#, nil),
        (#""sound": 5"#, nil),
    ])
    func soundAsANameOrACriticalDictionary(member: String, expected: PushSound?) throws {
        let payload = try decodePayload("{\"aps\": {\(member)}}")
        #expect(payload.sound == expected)
        #expect(payload.unrecognized.isEmpty == (expected != nil))
    }

    @Test(arguments: [
        ("0", BadgeInstruction.clear), ("1", .set(1)), ("12", .set(12)), (#""7""#, .set(7)), ("-1", .none),
        ("2.5", .none), (#""many""#, .none),
    ])
    func badge(value: String, expected: BadgeInstruction) throws {
        let payload = try decodePayload("{\"aps\": {\"badge\": \(value)}}")
        #expect(payload.badge == expected)
        #expect(payload.unrecognized.isEmpty == (expected != .none))
    }

    @Test(arguments: ["1", "true", #""1""#, #""true""#])
    func flagsAcceptEveryTruthySpelling(value: String) throws {
        let payload = try decodePayload("{\"aps\": {\"content-available\": \(value), \"mutable-content\": \(value)}}")
        #expect(payload.contentAvailable)
        #expect(payload.mutableContent)
    }

    @Test func flagsAtZeroAreFalse() throws {
        let payload = try decodePayload(#"{"aps": {"content-available": 0, "mutable-content": "0"}}"#)
        #expect(!payload.contentAvailable && !payload.mutableContent)
        #expect(payload.unrecognized.isEmpty)
    }

    @Test func theOtherMappedKeys() throws {
        let payload = try decodePayload(
            """
            {"aps": {"thread-id": "t", "category": "c", "target-content-id": "w", "interruption-level": "time-sensitive",
              "relevance-score": "0.75"}}
            """)
        #expect(payload.threadID == "t")
        #expect(payload.category == "c")
        #expect(payload.targetContentID == "w")
        #expect(payload.interruptionLevel == .timeSensitive)
        #expect(payload.relevanceScore == 0.75)
    }

    @Test func liveActivityAndFutureKeysStayAtTheirPath() throws {
        let payload = try decodePayload(
            """
            {"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"score": 2},
              "stale-date": 1700003600, "dismissal-date": 1700007200, "filter-criteria": "work", "x-future": true}}
            """)
        let aps = try #require(payload.unrecognized["aps"]?.objectValue)
        #expect(
            Set(aps.keys) == [
                "timestamp", "event", "content-state", "stale-date", "dismissal-date", "filter-criteria", "x-future",
            ])
        #expect(aps["content-state"] == ["score": 2])
        let documented = aps.keys.filter { PushPayload.documentedAPSKeys.contains($0) }
        #expect(documented.count == 6)
    }

    @Test func theMappedKeysAreDocumentedKeys() {
        #expect(PushPayload.mappedAPSKeys.isSubset(of: PushPayload.documentedAPSKeys))
        #expect(PushPayload.documentedAPSKeys.contains("attributes-type"))
    }

    @Test func apsOfTheWrongTypeIsKeptWhole() throws {
        let payload = try decodePayload(#"{"aps": [1]}"#)
        #expect(payload.unrecognized == ["aps": [1]])
        let embedded = try decodePayload(#"{"aps": "{\"alert\": \"hi\"}"}"#)
        #expect(embedded.alert == PushAlert(body: "hi"))
    }

    @Test func wrongTypesAreKeptNotThrown() throws {
        let payload = try decodePayload(
            #"{"aps": {"alert": 3, "category": [], "interruption-level": 1, "relevance-score": "high"}}"#)
        #expect(payload.alert == nil && payload.category == nil)
        #expect(
            payload.unrecognized == [
                "aps": ["alert": 3, "category": [], "interruption-level": 1, "relevance-score": "high"]
            ])
    }
}
