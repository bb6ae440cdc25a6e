import Testing

@testable import TidingsModel

@Suite struct LintURLTests {
    @Test(
        arguments: [
            ("https://cdn.example.com/a/b.JPG?x=1#f", "https", "cdn.example.com", "jpg"),
            ("HTTP://user:pw@host.example:8080/v.mp4", "http", "host.example", "mp4"),
            ("https://[::1]:443/x.png", "https", "[::1]", "png"),
            ("myapp://item/7", "myapp", "item", nil),
            ("tel:+81-3-0000", "tel", nil, nil),
        ] as [(String, String, String?, String?)])
    func parsesTheParts(_ text: String, _ scheme: String, _ host: String?, _ ext: String?) throws {
        let url = try #require(LintURL(text))
        #expect(url.scheme == scheme)
        #expect(url.host == host)
        #expect(url.pathExtension == ext)
        #expect(LintURL.problem(in: text) == nil)
    }

    @Test(arguments: [
        "", "/relative/path", "no-scheme.example.com/a", "1http://x", "https://a b", "https://", "http:///x",
        "myapp://カート", "https://x.example/\u{7}",
    ])
    func rejects(_ text: String) {
        #expect(LintURL.problem(in: text) != nil)
    }

    @Test func fileExtensionIgnoresDotfilesAndTrailingDots() {
        #expect(LintURL.fileExtension(of: ".hidden") == nil)
        #expect(LintURL.fileExtension(of: "name.") == nil)
        #expect(LintURL.fileExtension(of: "a.tar.GZ") == "gz")
    }
}
