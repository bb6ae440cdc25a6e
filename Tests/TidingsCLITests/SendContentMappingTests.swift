import Foundation
import Testing
import TidingsModel

/// Each content shorthand of `tidings send` lands in the stored payload as docs/cli.md says.
@Suite struct SendContentMappingTests {
    /// Sends a titled alert with `options` to one installation and answers the payload tidingsd stored.
    func storedPayload(_ options: [String]) async throws -> PushPayload {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let result = try await backend.tidingsConnected(
            ["send", "--installation", "phone-1", "--title", "Hi", "--json"] + options)
        #expect(result.status == 0, "\(result.standardError)")
        let id = try #require(try JSONValue.parse(result.standardOutput)["message_id"]?.stringValue)
        let stored = try #require(try backend.message(id))
        await backend.stop()
        return stored.payload
    }

    @Test(arguments: [
        (["--link", "https://example.com/sale"], PushAction.web(url: "https://example.com/sale", inApp: false)),
        (["--deeplink", "shop://sale/7"], .deepLink(url: "shop://sale/7")),
        (["--screen", "cart"], .screen(name: "cart", parameters: [:])),
    ])
    func tapActions(options: [String], action: PushAction) async throws {
        #expect(try await storedPayload(options).defaultAction == action)
    }

    @Test(arguments: [
        ("7", BadgeInstruction.set(7)), ("+1", .increment(1)), ("+12", .increment(12)), ("clear", .clear),
        ("0", .clear),
    ])
    func badges(text: String, badge: BadgeInstruction) async throws {
        #expect(try await storedPayload(["--badge", text]).badge == badge)
    }

    @Test(arguments: [
        ("https://cdn.example/clip.mp4", PushMedia.Kind.video), ("https://cdn.example/song.m4a?v=2", .audio),
        ("https://cdn.example/photo.png", .image), ("https://cdn.example/loop.GIF", .gif),
        ("https://cdn.example/render", .image),
    ])
    func mediaTypes(url: String, kind: PushMedia.Kind) async throws {
        let media = try #require(try await storedPayload(["--media", url]).media)
        #expect(media.url == url)
        #expect(media.kind == kind)
    }

    @Test func aServerRuleComesBackAsItsRefusal() async throws {
        let backend = try APIBackend(sending: false)
        // https media is the server's rule, not the CLI's: its message reaches the user unchanged.
        let result = try await backend.tidingsConnected([
            "send", "--all", "--title", "Hi", "--media", "http://cdn.example/a.png",
        ])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "tidings: \(backend.endpoint) answered 400 invalid_field: content.media.url: must be an https URL\n")
        let longCollapse = try await backend.tidingsConnected([
            "send", "--all", "--title", "Hi", "--collapse-id", String(repeating: "x", count: 65),
        ])
        #expect(longCollapse.status == 1)
        #expect(longCollapse.standardError.contains("collapse_id: is 65 bytes; it must be 1 to 64 bytes"))
        await backend.stop()
    }
}
