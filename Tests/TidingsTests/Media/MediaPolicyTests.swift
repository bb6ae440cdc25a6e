import Foundation
import Testing
import Tidings
import TidingsTestSupport

/// The policy's defaults are Apple's limits, and its scheme rule.
@Suite("MediaPolicy")
struct MediaPolicyTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-media") }

    @Test func theDefaultsAreApplesCapsAndAnHTTPSOnlyDeadlineUnderThirtySeconds() {
        let policy = MediaPolicy()
        #expect(policy.maximumBytes(for: .image) == 10_485_760)
        #expect(policy.maximumBytes(for: .gif) == 10_485_760)
        #expect(policy.maximumBytes(for: .audio) == 5_242_880)
        #expect(policy.maximumBytes(for: .video) == 52_428_800)
        #expect(policy.overallTimeout == .seconds(25))
        #expect(policy.requestTimeout < policy.overallTimeout)
        #expect(policy.allowInsecureHTTP == false)
        #expect(policy.maximumRedirects > 0)
    }

    @Test(arguments: [
        ("https://cdn.example.com/a.png", false, true),
        ("http://cdn.example.com/a.png", false, false),
        ("http://cdn.example.com/a.png", true, true),
        ("http://MEDIA.example.org/a.png", false, true),
        ("ftp://cdn.example.com/a.png", true, false),
    ])
    func onlyHTTPSUnlessAllowed(_ url: String, _ allowAll: Bool, _ permitted: Bool) throws {
        var policy = MediaPolicy()
        policy.allowInsecureHTTP = allowAll
        policy.insecureHTTPHosts = ["media.example.org"]
        #expect(policy.permitsScheme(of: try #require(URL(string: url))) == permitted)
    }

    @Test(arguments: PushMedia.Kind.allCases)
    func aDeclaredLengthOneByteOverEachCapIsRefusedNamingTheLimit(_ kind: PushMedia.Kind) async throws {
        try await MediaFetcherTests.withServer(in: scratch.url) { server, directory in
            let limit = MediaPolicy().maximumBytes(for: kind)
            let media = PushMedia(source: .remote(url: server.url("/generated/\(limit + 1)")), kind: kind)
            let error = await MediaFetcherTests.failure(
                MediaFetcher(policy: MediaFetcherTests.policy(directory)), media)
            #expect(error?.code == .tooLarge)
            #expect(
                error?.message
                    == "\(kind.rawValue) is \(limit + 1) bytes (Content-Length); the limit is \(limit) bytes (\(limit / 1_048_576) MB)"
            )
            #expect(error?.description.hasPrefix("too_large: ") == true)
        }
    }
}
