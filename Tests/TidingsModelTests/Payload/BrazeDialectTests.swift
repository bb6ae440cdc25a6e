import Testing
import TidingsModel

/// Braze's `ab`, `ab_uri` and internal keys, key by key.
@Suite struct BrazeDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "http ab_uri with web view opens in the app",
            #"{"ab": {"c": "k"}, "ab_uri": "https://b.example.com", "ab_use_webview": true}"#,
            PushPayload(
                dialect: .braze, messageID: "k", campaignID: "k",
                defaultAction: .web(url: "https://b.example.com", inApp: true))),
        DecodingCase(
            "http ab_uri without web view opens the browser", #"{"ab": {"c": "k"}, "ab_uri": "https://b.example.com"}"#,
            PushPayload(
                dialect: .braze, messageID: "k", campaignID: "k",
                defaultAction: .web(url: "https://b.example.com", inApp: false))),
        DecodingCase(
            "other schemes are deep links", #"{"ab": {"c": "k"}, "ab_uri": "brazeapp://x", "ab_use_webview": "1"}"#,
            PushPayload(dialect: .braze, messageID: "k", campaignID: "k", defaultAction: .deepLink(url: "brazeapp://x"))
        ),
        DecodingCase(
            "attachment type is the file extension", #"{"ab": {"att": {"url": "https://b/m", "type": "gif"}}}"#,
            PushPayload(
                dialect: .braze,
                media: PushMedia(
                    source: .remote(url: "https://b/m"), kind: .gif, fileExtension: "gif", mimeType: "image/gif"))),
        DecodingCase(
            "attachment without url is a leftover", #"{"ab": {"att": {"type": "jpg"}}}"#,
            PushPayload(dialect: .braze, unrecognized: ["ab": ["att": ["type": "jpg"]]])),
        DecodingCase(
            "push stories and content cards are leftovers",
            #"{"ab": {"ab_carousel": [1], "ab_cd": {"id": 1}, "ab_cat": "x"}}"#,
            PushPayload(dialect: .braze, unrecognized: ["ab": ["ab_carousel": [1], "ab_cd": ["id": 1], "ab_cat": "x"]])),
        DecodingCase(
            "feature-flag refresh is internal", #"{"aps": {"content-available": 1}, "ab": {"c": "k"}, "br_ffr": 1}"#,
            PushPayload(
                dialect: .braze, messageID: "k", campaignID: "k", contentAvailable: true, isInternal: true,
                unrecognized: ["br_ffr": 1])),
        DecodingCase(
            "geofence sync inside ab is internal", #"{"ab": {"ab_sync_geos": true}}"#,
            PushPayload(dialect: .braze, isInternal: true, unrecognized: ["ab": ["ab_sync_geos": true]])),
        DecodingCase(
            "an internal key set to false is not internal", #"{"ab": {"c": "k"}, "appboy_uninstall_tracking": false}"#,
            PushPayload(
                dialect: .braze, messageID: "k", campaignID: "k", unrecognized: ["appboy_uninstall_tracking": false])),
        DecodingCase(
            "test triggers fetch is internal", #"{"ab_push_fetch_test_triggers_key": "true"}"#,
            PushPayload(dialect: .braze, isInternal: true, unrecognized: ["ab_push_fetch_test_triggers_key": "true"])),
        DecodingCase(
            "key-value pairs are data; webview flag without uri is a leftover",
            #"{"ab": {"c": "k"}, "coupon_id": "42", "ab_use_webview": true}"#,
            PushPayload(
                dialect: .braze, messageID: "k", campaignID: "k", data: ["coupon_id": "42"],
                unrecognized: ["ab_use_webview": true])),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
