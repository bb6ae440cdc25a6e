import Foundation
import Testing
import TidingsModel

/// Near-valid payloads — real examples with one value swapped for random JSON at a random path — decode
/// without throwing, to the same owner whenever the ownership keys were left alone.
@Suite struct MutatedPayloadTests {
    static let fixtures = [
        SeedFixtures.moEngageFullPayload, SeedFixtures.treasureDataDataPayload, SeedFixtures.nhnCloudRichMessage,
        SeedFixtures.treasureDataSimulatorTestPayload, SeedFixtures.brazeBackgroundPush,
        #"{"aps": {"alert": {"title": "T"}, "badge": 2}, "tidings": {"v": 1, "action": {"type": "web", "url": "https://x"}, "buttons": [{"id": "a", "title": "A", "type": "reply"}], "media": {"url": "https://x/a.png"}, "inbox": {"expires_at": 1}}}"#,
        #"{"aps": {"alert": "x"}, "gcm.message_id": "1", "fcm_options": {"image": "https://x/i.png"}}"#,
    ]

    /// Every path to a value inside `value`, objects by key and arrays by index.
    static func paths(in value: JSONValue, prefix: [String] = []) -> [[String]] {
        switch value {
        case .object(let object):
            return object.keys.sorted().flatMap { key -> [[String]] in
                let path: [String] = prefix + [key]
                return [path] + paths(in: object[key]!, prefix: path)
            }
        case .array(let array):
            return array.indices.flatMap { index -> [[String]] in
                let path: [String] = prefix + ["#\(index)"]
                return [path] + paths(in: array[index], prefix: path)
            }
        default:
            return []
        }
    }

    static func replacing(_ path: ArraySlice<String>, in value: JSONValue, with new: JSONValue) -> JSONValue {
        guard let head = path.first else { return new }
        switch value {
        case .object(var object):
            object[head] = replacing(path.dropFirst(), in: object[head] ?? .null, with: new)
            return .object(object)
        case .array(var array):
            guard let index = Int(head.dropFirst()), array.indices.contains(index) else { return value }
            array[index] = replacing(path.dropFirst(), in: array[index], with: new)
            return .array(array)
        default:
            return value
        }
    }

    @Test(arguments: fixtures.indices)
    func mutatedExamplesStillDecode(fixture: Int) throws {
        let original = try jsonValue(Self.fixtures[fixture])
        let owner = PushPayload.detectDialect(original)
        let ownershipKeys: Set<String> = [
            "tidings", "ab", "moengage", "richMessage", "messageDeliveryReceiptData", "messageDeliveryReceipt",
            "td_campaign_id", "campaign_id", "message_id", "gcm.message_id",
        ]
        var generator = PayloadGenerator(seed: UInt64(fixture) + 1000)
        let paths = Self.paths(in: original)
        for path in paths {
            for _ in 0..<4 {
                let mutated = Self.replacing(path[...], in: original, with: generator.json(depth: 2))
                let payload = try PushPayload(json: mutated)
                if let top = path.first, !ownershipKeys.contains(top) {
                    #expect(payload.dialect == owner, "\(path)")
                }
            }
        }
        #expect(paths.count >= 5)
    }
}
