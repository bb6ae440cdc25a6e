import Foundation
import Testing
import TidingsHTTP
import TidingsServer

/// The client address behind proxies: the forwarding header is believed only from a trusted peer, read right
/// to left past trusted hops, and never past an entry that cannot be read.
@Suite struct TrustedProxiesTests {
    static let proxies = try! TrustedProxies(["10.0.0.0/8", "fd00::/8", "192.0.2.10"])

    static func client(
        _ proxies: TrustedProxies = proxies, peer: String?, _ headers: [(String, String)]
    ) -> String? {
        proxies.clientAddress(peer: peer, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    /// (peer, X-Forwarded-For values, the client)
    static let xForwardedFor: [(String, [String], String)] = [
        // A trusted proxy names its client.
        ("10.0.0.5", ["198.51.100.7"], "198.51.100.7"),
        // Two trusted hops, the client left of them.
        ("10.0.0.5", ["198.51.100.7, 10.1.1.1"], "198.51.100.7"),
        // A value the client sent is left of its own address, which the trusted proxy appended: never read.
        ("10.0.0.5", ["6.6.6.6, 198.51.100.7"], "198.51.100.7"),
        ("10.0.0.5", ["10.9.9.9, 198.51.100.7, 10.1.1.1"], "198.51.100.7"),
        // Several header lines are one list, in order.
        ("10.0.0.5", ["6.6.6.6", "198.51.100.7, 10.1.1.1"], "198.51.100.7"),
        // IPv6, with and without brackets and ports; IPv4 with a port.
        ("fd00::1", ["2001:db8::7"], "2001:db8::7"),
        ("fd00::1", ["[2001:db8::7]:4711"], "2001:db8::7"),
        ("10.0.0.5", ["198.51.100.7:51234"], "198.51.100.7"),
        // A dual-stack socket's IPv4-mapped peer matches an IPv4 network.
        ("::ffff:10.0.0.5", ["198.51.100.7"], "198.51.100.7"),
        // Only trusted hops: the leftmost of them.
        ("10.0.0.5", ["10.1.1.1, 192.0.2.10"], "10.1.1.1"),
        // No header: the proxy itself.
        ("10.0.0.5", [], "10.0.0.5"),
    ]

    @Test(arguments: xForwardedFor)
    func aTrustedProxysChainIsWalkedRightToLeft(_ peer: String, _ values: [String], _ expected: String) {
        #expect(Self.client(peer: peer, values.map { ("X-Forwarded-For", $0) }) == expected)
    }

    @Test(arguments: ["198.51.100.7", "2001:db8::9", "10.0.0.5"])
    func anUntrustedPeerIsTheClientWhateverItsHeadersSay(_ spoofed: String) {
        let headers = [("X-Forwarded-For", spoofed), ("Forwarded", "for=\(spoofed)")]
        #expect(Self.client(peer: "203.0.113.9", headers) == "203.0.113.9")
        #expect(Self.client(peer: "2001:db8::1", headers) == "2001:db8::1")
        // Trusting no one (the default), even a private peer is the client.
        #expect(Self.client(TrustedProxies(), peer: "10.0.0.5", headers) == "10.0.0.5")
        // A peer just outside a trusted network is not trusted.
        #expect(Self.client(peer: "192.0.2.11", headers) == "192.0.2.11")
        #expect(Self.client(peer: "fe00::1", headers) == "fe00::1")
    }

    /// (X-Forwarded-For, the client): a hop that cannot be read stops the walk at the trusted hop before it.
    static let malformed: [(String, String)] = [
        ("", "10.0.0.5"),
        ("not-an-address", "10.0.0.5"),
        ("198.51.100.7, ", "10.0.0.5"),
        ("198.51.100.7, garbage, 10.1.1.1", "10.1.1.1"),
        ("198.51.100.256", "10.0.0.5"),
        ("198.51.100.7:99999999", "10.0.0.5"),
        ("[2001:db8::7", "10.0.0.5"),
        ("2001:db8::7:80:xyz", "10.0.0.5"),
        ("fe80::1%eth0", "10.0.0.5"),
        (String(repeating: "1", count: 5000), "10.0.0.5"),
    ]

    @Test(arguments: malformed)
    func aMalformedHopNamesNoClient(_ value: String, _ expected: String) {
        #expect(Self.client(peer: "10.0.0.5", [("X-Forwarded-For", value)]) == expected)
    }

    @Test func forwardedIsReadWhenConfiguredAndXForwardedForThenIgnored() {
        var proxies = Self.proxies
        proxies.header = .forwarded
        let cases: [(String, String)] = [
            ("for=198.51.100.7;proto=https", "198.51.100.7"),
            ("for=6.6.6.6, For=\"198.51.100.7:443\";by=10.0.0.5", "198.51.100.7"),
            ("for=\"[2001:db8:cafe::17]:4711\"", "2001:db8:cafe::17"),
            ("for=198.51.100.7, for=10.1.1.1", "198.51.100.7"),
            ("for=unknown", "10.0.0.5"),
            ("for=_hidden, for=10.1.1.1", "10.1.1.1"),
            ("proto=https", "10.0.0.5"),
            ("for=\"198.51.100.7", "10.0.0.5"),
            ("for=\"a,b\", for=198.51.100.7", "198.51.100.7"),
        ]
        for (value, expected) in cases {
            #expect(
                Self.client(proxies, peer: "10.0.0.5", [("Forwarded", value), ("X-Forwarded-For", "6.6.6.6")])
                    == expected, "\(value)")
        }
        // The default reads X-Forwarded-For only, so a client's own Forwarded header is never believed.
        #expect(Self.client(peer: "10.0.0.5", [("Forwarded", "for=6.6.6.6")]) == "10.0.0.5")
    }

    @Test func networksParseAndRefuseWhatIsNotOne() throws {
        #expect(try IPNetwork(parsing: "10.1.2.3/8").description == "10.0.0.0/8")
        #expect(try IPNetwork(parsing: "2001:db8::1/32").description == "2001:db8::/32")
        #expect(try IPNetwork(parsing: "192.0.2.1").description == "192.0.2.1/32")
        #expect(try IPNetwork(parsing: "0.0.0.0/0").contains(#require(IPAddress("203.0.113.1"))))
        #expect(try !IPNetwork(parsing: "0.0.0.0/0").contains(#require(IPAddress("2001:db8::1"))))
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "example.com", "10.0.0"] {
            #expect(throws: IPNetwork.ParseError.self, "\(bad)") { try IPNetwork(parsing: bad) }
        }
    }
}
