import Testing
import TidingsModel

/// Treasure Data's flat data payload, key by key.
@Suite struct TreasureDataDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "flat title and body become the alert when aps has none",
            #"{"td_campaign_id": "c", "title": "T", "body": "B", "aps": {"content-available": 1}}"#,
            PushPayload(
                dialect: .treasuredata, campaignID: "c", alert: PushAlert(title: "T", body: "B"), contentAvailable: true
            )),
        DecodingCase(
            "a differing flat title is a leftover",
            #"{"td_campaign_id": "c", "title": "Flat", "aps": {"alert": {"title": "Aps"}}}"#,
            PushPayload(
                dialect: .treasuredata, campaignID: "c", alert: PushAlert(title: "Aps"), unrecognized: ["title": "Flat"]
            )),
        DecodingCase(
            "custom-scheme link is a deep link", #"{"td_campaign_id": "c", "link": "tdapp://promo"}"#,
            PushPayload(dialect: .treasuredata, campaignID: "c", defaultAction: .deepLink(url: "tdapp://promo"))),
        DecodingCase(
            "deeplink beats link", #"{"td_campaign_id": "c", "link": "https://w", "deeplink": "tdapp://d"}"#,
            PushPayload(
                dialect: .treasuredata, campaignID: "c", defaultAction: .deepLink(url: "tdapp://d"),
                unrecognized: ["link": "https://w"])),
        DecodingCase(
            "campaign_id beside td_campaign_id is a leftover", #"{"td_campaign_id": "td", "campaign_id": "c"}"#,
            PushPayload(dialect: .treasuredata, campaignID: "td", unrecognized: ["campaign_id": "c"])),
        DecodingCase(
            "string values holding JSON are parsed into data; FCM keys are leftovers",
            #"{"td_campaign_id": "c", "extra": "{\"a\": [1]}", "n": "5", "gcm.message_id": "0:1", "google.c.sender.id": "9"}"#,
            PushPayload(
                dialect: .treasuredata, campaignID: "c", data: ["extra": ["a": [1]], "n": "5"],
                unrecognized: ["gcm.message_id": "0:1", "google.c.sender.id": "9"])),
        DecodingCase(
            "aps as a JSON string", #"{"td_campaign_id": "c", "aps": "{\"alert\": \"hi\", \"badge\": \"2\"}"}"#,
            PushPayload(dialect: .treasuredata, campaignID: "c", alert: PushAlert(body: "hi"), badge: .set(2))),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
