import Foundation
import Testing
import TidingsModel

@testable import TidingsServer
@testable import TidingsStore

/// The answers written field by field must be byte for byte what the generic writer gives.
@Suite struct DirectJSONTests {
    static let installations = [
        Installation(appID: "app_1", installationID: "inst-1", createdAt: 1, updatedAt: 2),
        Installation(
            appID: "app_1", installationID: "i\"\\n\u{1}é", platform: "android",
            apnsToken: String(repeating: "ab", count: 32),
            voipToken: String(repeating: "cd", count: 32), fcmToken: "fcm:tok\"en", environment: "sandbox",
            userID: "user \"quoted\" \n line", consents: .init(notifications: true, ads: false, nightAds: nil),
            permission: "authorized", locale: "ja_JP", country: "JP", timezone: "Asia/Tokyo", appVersion: "1.0",
            sdkVersion: "0.1.0", osVersion: "18.1", deviceModel: "iPhone16,1", createdAt: -5,
            updatedAt: Int64.max),
    ]

    @Test(arguments: installations)
    func installationBytesAreThoseOfTheSortedJSONValue(installation: Installation) throws {
        let direct = InstallationJSON.data(installation)
        #expect(direct == JSONText.data(InstallationJSON.json(installation)))
        #expect(try JSONValue.parse(direct) == InstallationJSON.json(installation))
    }

    @Test func receiptBytesAreThoseOfTheSortedJSONValue() throws {
        let receipts: [EventReceipt?] = [
            EventReceipt(eventID: "0f0e0d0c-0b0a-4908-8706-050403020100", status: .accepted),
            nil,
            EventReceipt(eventID: "dup", status: .duplicate),
            EventReceipt(
                eventID: nil, status: .rejected,
                error: WireError(code: "missing_field", message: "event_id is \"required\"\n")),
            EventReceipt(eventID: "x", status: .rejected, error: WireError(code: "unknown_type", message: "é")),
        ]
        var expected: [JSONValue] = []
        for case let receipt? in receipts {
            var object: [String: JSONValue] = [
                "event_id": receipt.eventID.map(JSONValue.string) ?? .null, "status": .string(receipt.status.rawValue),
            ]
            if let error = receipt.error {
                object["error"] = ["code": .string(error.code), "message": .string(error.message)]
            }
            expected.append(.object(object))
        }
        let direct = APIService.receiptsData(receipts)
        #expect(direct == JSONText.data(["receipts": .array(expected)]))
        #expect(APIService.receiptsData([]) == Data(#"{"receipts":[]}"#.utf8))
    }

    @Test(arguments: [
        "0f0e0d0c-0b0a-4908-8706-050403020100", "0F0E0D0C-0B0A-4908-8706-05040302010A",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "0f0e0d0c-0b0a-4908-8706-05040302010", "0f0e0d0c-0b0a-4908-8706-0504030201000",
        "0f0e0d0c0b0a-4908-8706-0504030201000",
        "0f0e0d0c-0b0a-4908-8706_050403020100", "0f0e0d0g-0b0a-4908-8706-050403020100", "", "not a uuid",
        "{0f0e0d0c-0b0a-4908-8706-050403020100}", " 0f0e0d0c-0b0a-4908-8706-05040302010",
        "0f0e0d0c-0b0a-4908-8706-05040302010é",
    ])
    func eventIDsAreReadAsFoundationReadsThem(text: String) {
        let event: JSONValue = [
            "event_id": .string(text), "type": "app_open", "occurred_at": 1_700_000_000_000, "installation_id": "i",
        ]
        let parsed = try? TidingsEvent(json: event)
        #expect(parsed?.eventID == UUID(uuidString: text))
    }
}
