import Testing
import Tidings

@Suite struct DeepLinkAllowListTests {
    let list = DeepLinkAllowList(schemes: ["MyApp"], hosts: ["example.com", "*.shop.example"])

    @Test(arguments: [
        "myapp://orders/42", "MYAPP://x", "https://example.com/", "https://EXAMPLE.com/a?b=c",
        "https://a.shop.example/sale", "https://x.y.shop.example/",
    ])
    func allows(url: String) {
        #expect(list.allows(url))
    }

    @Test(arguments: [
        "", "orders/42", "http://example.com/", "https://example.com.evil.test/", "https://shop.example/",
        "https://evilshop.example/", "javascript:alert(1)", "file:///etc/passwd", "https:///nohost", "other://x",
        "https://example.com@evil.test/", "https://evil.test/?next=https://example.com/",
    ])
    func rejects(url: String) {
        #expect(!list.allows(url))
        #expect(list.rejectionReason(url) != nil)
    }

    @Test func emptyListAllowsNothing() {
        #expect(!DeepLinkAllowList().allows("myapp://x"))
        #expect(!DeepLinkAllowList().allows("https://example.com/"))
    }
}
