import Testing
import TidingsModel

/// Ownership is deterministic: first match in the documented order wins, and each tie-break is pinned.
@Suite struct DialectDetectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let json: String
        let dialect: PushDialect
        var testDescription: String { name }
    }

    static let singleDialect: [Case] = [
        Case(name: "tidings object", json: #"{"tidings": {"v": 1}}"#, dialect: .native),
        Case(name: "non-empty ab", json: #"{"ab": {"c": "x"}}"#, dialect: .braze),
        Case(name: "ab as a JSON string", json: #"{"ab": "{\"c\": \"x\"}"}"#, dialect: .braze),
        Case(name: "Braze uninstall key alone", json: #"{"appboy_uninstall_tracking": 1}"#, dialect: .braze),
        Case(name: "Braze test-trigger key", json: #"{"ab_push_fetch_test_triggers_key": true}"#, dialect: .braze),
        Case(name: "moengage object", json: #"{"moengage": {}}"#, dialect: .moengage),
        Case(name: "NHN receipt data", json: #"{"messageDeliveryReceiptData": {"messageId": 1}}"#, dialect: .nhncloud),
        Case(name: "NHN receipt flag", json: #"{"messageDeliveryReceipt": true}"#, dialect: .nhncloud),
        Case(name: "NHN rich message", json: #"{"richMessage": {}}"#, dialect: .nhncloud),
        Case(name: "TD campaign", json: #"{"td_campaign_id": "c"}"#, dialect: .treasuredata),
        Case(name: "TD test payload", json: #"{"campaign_id": "c", "message_id": "m"}"#, dialect: .treasuredata),
        Case(name: "FCM message id", json: #"{"gcm.message_id": "1"}"#, dialect: .fcm),
        Case(name: "FCM analytics key", json: #"{"google.c.a.e": "1"}"#, dialect: .fcm),
        Case(name: "aps only", json: #"{"aps": {"alert": "hi"}}"#, dialect: .apns),
        Case(name: "empty object", json: "{}", dialect: .apns),
    ]

    static let notOwnership: [Case] = [
        Case(name: "tidings not an object", json: #"{"tidings": "x"}"#, dialect: .apns),
        Case(name: "empty ab", json: #"{"ab": {}}"#, dialect: .apns),
        Case(name: "app_extra alone", json: #"{"app_extra": {"moe_deeplink": "a://b"}}"#, dialect: .apns),
        Case(name: "campaign_id alone", json: #"{"campaign_id": "c"}"#, dialect: .apns),
        Case(name: "google.* outside google.c", json: #"{"google.x": "1"}"#, dialect: .apns),
    ]

    static let tieBreaks: [Case] = [
        Case(name: "native beats Braze", json: #"{"tidings": {}, "ab": {"c": "x"}}"#, dialect: .native),
        Case(
            name: "native beats everything",
            json: #"{"tidings": {}, "moengage": {}, "td_campaign_id": "c", "gcm.message_id": "1"}"#, dialect: .native),
        Case(name: "Braze beats MoEngage", json: #"{"ab": {"c": "x"}, "moengage": {"cid": "m"}}"#, dialect: .braze),
        Case(name: "Braze internal key beats MoEngage", json: #"{"br_ffr": 1, "moengage": {}}"#, dialect: .braze),
        Case(
            name: "MoEngage beats NHN", json: #"{"moengage": {}, "messageDeliveryReceiptData": {}}"#, dialect: .moengage
        ),
        Case(name: "NHN beats Treasure Data", json: #"{"richMessage": {}, "td_campaign_id": "c"}"#, dialect: .nhncloud),
        Case(
            name: "Treasure Data beats FCM", json: #"{"td_campaign_id": "c", "gcm.message_id": "1"}"#,
            dialect: .treasuredata),
        Case(name: "FCM beats plain APNs", json: #"{"aps": {}, "gcm.message_id": "1"}"#, dialect: .fcm),
        Case(name: "empty ab falls through to MoEngage", json: #"{"ab": {}, "moengage": {}}"#, dialect: .moengage),
    ]

    @Test(arguments: singleDialect + notOwnership + tieBreaks)
    func detectsTheOwner(_ testCase: Case) throws {
        let json = try jsonValue(testCase.json)
        #expect(PushPayload.detectDialect(json) == testCase.dialect)
        #expect(try PushPayload(json: json).dialect == testCase.dialect)
    }

    @Test func nonObjectsAreNobodysAndPlainAPNs() {
        #expect(PushPayload.detectDialect([1, 2]) == .apns)
        #expect(PushPayload.detectDialect("tidings") == .apns)
    }

    @Test func theLosersKeysBecomeTheOwnersDataOrLeftovers() throws {
        // Native: other top-level keys are the app's data, even vendor ones.
        let native = try decodePayload(#"{"tidings": {"id": "n"}, "moengage": {"cid": "m"}}"#)
        #expect(native.messageID == "n")
        #expect(native.data == ["moengage": ["cid": "m"]])
        // Treasure Data over FCM: FCM's transport keys are kept as leftovers, not data.
        let td = try decodePayload(#"{"td_campaign_id": "c", "gcm.message_id": "1", "extra": "x"}"#)
        #expect(td.unrecognized == ["gcm.message_id": "1"])
        #expect(td.data == ["extra": "x"])
    }
}
