import Foundation
import Testing
import TidingsModel

@Suite struct JSONValueTests {
    @Test func codableRoundTripKeepsIntegersApartFromDoubles() throws {
        let value: JSONValue = ["id": 9_007_199_254_740_993, "ratio": 0.5, "tags": ["a", nil, true]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}
