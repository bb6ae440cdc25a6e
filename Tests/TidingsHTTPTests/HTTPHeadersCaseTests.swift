import Testing
import TidingsHTTP

@Suite struct HTTPHeadersCaseTests {
    @Test(arguments: [
        ("X-Request-Id", "x-request-id", true), ("CONTENT-LENGTH", "content-length", true),
        ("Content-Length", "Content-Lengt", false), ("a[", "A{", false), ("x-1", "X-1", true), ("é", "É", false),
    ])
    func namesCompareWithAnASCIICaseFold(first: String, second: String, same: Bool) {
        var headers = HTTPHeaders()
        headers[first] = "v"
        #expect((headers[second] == "v") == same)
    }
}
