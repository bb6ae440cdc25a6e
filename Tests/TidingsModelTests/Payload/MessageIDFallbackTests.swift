import Testing
import TidingsModel

/// The message and campaign id fallback order of each dialect, as documented on `PushPayload.init(json:)`.
@Suite struct MessageIDFallbackTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let json: String
        let messageID: String?
        let campaignID: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "native id and cid", json: #"{"tidings": {"id": "m", "cid": "c"}}"#, messageID: "m", campaignID: "c"),
        Case(name: "native numeric ids", json: #"{"tidings": {"id": 42, "cid": 7}}"#, messageID: "42", campaignID: "7"),
        Case(name: "native without ids", json: #"{"tidings": {}}"#, messageID: nil, campaignID: nil),
        Case(
            name: "NHN 64-bit message id", json: #"{"messageDeliveryReceiptData": {"messageId": 9223372036854775807}}"#,
            messageID: "9223372036854775807", campaignID: "9223372036854775807"),
        Case(
            name: "NHN receipt as a JSON string", json: #"{"messageDeliveryReceiptData": "{\"messageId\": 12}"}"#,
            messageID: "12", campaignID: "12"),
        Case(name: "NHN without receipt data", json: #"{"richMessage": {}}"#, messageID: nil, campaignID: nil),
        Case(
            name: "MoEngage cid and moe_campaign_id", json: #"{"moengage": {"cid": "m", "moe_campaign_id": "c"}}"#,
            messageID: "m", campaignID: "c"),
        Case(name: "MoEngage cid only", json: #"{"moengage": {"cid": "m"}}"#, messageID: "m", campaignID: "m"),
        Case(name: "MoEngage nothing", json: #"{"moengage": {"silentPush": 1}}"#, messageID: nil, campaignID: nil),
        Case(
            name: "Braze send id and ab.c", json: #"{"br_p_id": "s", "ab": {"c": "c"}}"#, messageID: "s",
            campaignID: "c"),
        Case(name: "Braze ab.c only", json: #"{"ab": {"c": "c"}}"#, messageID: "c", campaignID: "c"),
        Case(name: "Braze neither", json: #"{"ab": {"x": 1}}"#, messageID: nil, campaignID: nil),
        Case(
            name: "TD td_campaign_id beats campaign_id",
            json: #"{"td_campaign_id": "td", "campaign_id": "c", "message_id": "m"}"#, messageID: "m",
            campaignID: "td"),
        Case(
            name: "TD data payload has no message id", json: #"{"td_campaign_id": "td"}"#, messageID: nil,
            campaignID: "td"),
        Case(
            name: "TD test payload", json: #"{"campaign_id": "c", "message_id": "m"}"#, messageID: "m",
            campaignID: "c"),
        Case(
            name: "FCM message and campaign", json: #"{"gcm.message_id": "0:1", "google.c.a.c_id": "42"}"#,
            messageID: "0:1", campaignID: "42"),
        Case(name: "FCM without campaign", json: #"{"gcm.message_id": "0:1"}"#, messageID: "0:1", campaignID: nil),
        Case(
            name: "plain APNs has none", json: #"{"aps": {}, "id": "x", "message_id": "y"}"#, messageID: nil,
            campaignID: nil),
    ]

    @Test(arguments: cases)
    func fallsBackInTheDocumentedOrder(_ testCase: Case) throws {
        let payload = try decodePayload(testCase.json)
        #expect(payload.messageID == testCase.messageID)
        #expect(payload.campaignID == testCase.campaignID)
    }
}
