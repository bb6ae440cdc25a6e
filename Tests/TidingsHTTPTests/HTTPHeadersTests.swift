import Testing
import TidingsHTTP

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresLetterCaseAndSettingReplaces() {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        headers["CONTENT-TYPE"] = "text/csv"
        #expect(headers["Content-Type"] == "text/csv")
        #expect(Array(headers).count == 1)
    }
}
