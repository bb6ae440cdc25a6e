import Testing
import TidingsHTTP

@Suite struct BearerTokenTests {
    static let secret = "s3cret-metrics-token-0123"

    @Test(arguments: ["", "short", "has a space in it ok", "tab\there-0123456789", "ünicode-0123456789abc"])
    func unsafeOrShortTokensAreRefused(text: String) {
        #expect(BearerToken(text) == nil)
    }

    @Test func onlyTheExactTokenAfterBearerIsAccepted() throws {
        let token = try #require(BearerToken(Self.secret))
        #expect(token.isPresented(in: "Bearer \(Self.secret)"))
        #expect(token.isPresented(in: "bearer \(Self.secret)"))
        for wrong in [
            nil, "", "Bearer", "Bearer ", Self.secret, "Basic \(Self.secret)", "Bearer \(Self.secret.dropLast())",
            "Bearer \(Self.secret)x", "Bearer x\(Self.secret)", "Bearer  \(Self.secret)",
            "Bearer S3cret-metrics-token-0123",
        ] {
            #expect(!token.isPresented(in: wrong), "\(wrong ?? "nil") must not pass")
        }
    }

    @Test func theTokenNeverShowsInDescriptions() throws {
        let token = try #require(BearerToken(Self.secret))
        #expect(String(describing: token) == "<redacted>")
        #expect(String(reflecting: token) == "<redacted>")
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains(Self.secret))
        #expect(!"\([token])".contains(Self.secret))
    }
}
