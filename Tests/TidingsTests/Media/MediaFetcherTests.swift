import Foundation
import Testing
import Tidings
import TidingsTestSupport

/// `MediaFetcher` against a loopback server: each test gets its own server and destination directory.
@Suite("MediaFetcher")
struct MediaFetcherTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-media") }

    /// A policy for the loopback server (plain http allowed; HTTPS is not available here).
    static func policy(_ destination: URL) -> MediaPolicy {
        var policy = MediaPolicy(destinationDirectory: destination)
        policy.allowInsecureHTTP = true
        return policy
    }

    /// Runs `body` with a fresh server and `directory` (the calling test's own), and always stops the server.
    static func withServer(
        in directory: URL, _ body: (MediaTestServer, URL) async throws -> Void
    ) async throws {
        let server = try MediaTestServer()
        do {
            try await body(server, directory)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// The error `fetch` throws, or nil when it succeeds.
    static func failure(
        _ fetcher: MediaFetcher, _ media: PushMedia, deadline: ContinuousClock.Instant? = nil
    ) async -> MediaFetchError? {
        do {
            let plan = try await fetcher.fetch(media, deadline: deadline)
            try? FileManager.default.removeItem(at: plan.fileURL)
            return nil
        } catch {
            return error
        }
    }

    @Test func downloadsAPNGToAFreshFileWithItsExtension() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let media = PushMedia(source: .remote(url: server.url("/image.png")), kind: .image)
            let first = try await fetcher.fetch(media)
            let second = try await fetcher.fetch(media)
            #expect(first.kind == .image)
            #expect(first.typeHint == "public.png")
            #expect(first.mimeType == "image/png")
            #expect(first.byteCount == Int64(MediaFixtures.png.count))
            #expect(first.fileURL.pathExtension == "png")
            #expect(first.fileURL.deletingLastPathComponent().path == directory.path)
            #expect(first.fileURL != second.fileURL)
            #expect(try Data(contentsOf: first.fileURL) == MediaFixtures.png)
            #expect(MediaFixtures.contents(of: directory).count == 2)
        }
    }

    @Test func magicBytesWinOverAWrongContentTypeAndExtension() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let media = PushMedia(source: .remote(url: server.url("/png-labelled-mp4")), kind: .image)
            let plan = try await fetcher.fetch(media)
            #expect(plan.typeHint == "public.png")
            #expect(plan.mimeType == "image/png")
            #expect(plan.fileURL.pathExtension == "png")

            let renamed = PushMedia(
                source: .remote(url: server.url("/renamed.bin")), kind: .image, fileExtension: "jpg")
            #expect(try await fetcher.fetch(renamed).fileURL.pathExtension == "png")
        }
    }

    @Test func aDeclaredContentLengthOverTheCapFailsBeforeTheBodyIsRead() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let media = PushMedia(source: .remote(url: server.url("/declared-60mb")), kind: .video)
            let error = await Self.failure(fetcher, media)
            #expect(error?.code == .tooLarge)
            #expect(
                error?.message == "video is 62914560 bytes (Content-Length); the limit is 52428800 bytes (50 MB)")
            await server.waitForStreamsToStop()
            #expect(server.openStreams == 0)
            // The paced producer sends at most 32 MB/s: well under half a second's worth means the client
            // hung up at the headers, far from the 60 MB declared.
            #expect(server.streamedBytes < 16 * 1_048_576)
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func aBodyWithoutContentLengthStopsAtTheCapAndLeavesNoFile() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            var policy = Self.policy(directory)
            policy.maximumImageBytes = 256 * 1024
            let fetcher = MediaFetcher(policy: policy)
            let media = PushMedia(source: .remote(url: server.url("/chunked-32mb")), kind: .image)
            let error = await Self.failure(fetcher, media)
            #expect(error?.code == .tooLarge)
            #expect(error?.message.hasPrefix("image passed ") == true)
            #expect(error?.message.hasSuffix("bytes while downloading; the limit is 262144 bytes") == true)
            #expect(MediaFixtures.contents(of: directory).isEmpty)
            await server.waitForStreamsToStop()
            #expect(server.openStreams == 0)
            // The client hung up: the producer stopped long before the end (buffers hold a few MB at most).
            #expect(server.streamedBytes < 16 * 1_048_576)
        }
    }

    @Test func aSlowServerPastTheDeadlineTimesOutAndLeavesNoFile() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let media = PushMedia(source: .remote(url: server.url("/slow")), kind: .image)
            let started = ContinuousClock.now
            let error = await Self.failure(fetcher, media, deadline: .now + .milliseconds(600))
            #expect(error?.code == .timeout)
            #expect(error?.message.contains("deadline") == true)
            // Sanity bound only: the stream would take 10 s.
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(server.streamedBytes > 0)
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func aServerThatStallsHitsTheRequestTimeoutBeforeTheDeadline() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            var policy = Self.policy(directory)
            policy.requestTimeout = .seconds(1)
            let fetcher = MediaFetcher(policy: policy)
            let started = ContinuousClock.now
            let error = await Self.failure(
                fetcher, PushMedia(source: .remote(url: server.url("/stall")), kind: .image),
                deadline: .now + .seconds(15))
            #expect(error?.code == .timeout)
            #expect(error?.message == "the server stalled past the request timeout (1.0 s)")
            // Sanity bound only: the deadline is 15 s away.
            #expect(ContinuousClock.now - started < .seconds(12))
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func cancellingTheTaskCancelsTheDownload() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let media = PushMedia(source: .remote(url: server.url("/slow")), kind: .image)
            let task = Task { await Self.failure(fetcher, media) }
            while server.streamedBytes == 0 { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            let error = await task.value
            #expect(error?.code == .cancelled)
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func aNotFoundIsAnHTTPStatusError() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let error = await Self.failure(
                fetcher, PushMedia(source: .remote(url: server.url("/missing.png")), kind: .image))
            #expect(error?.code == .httpStatus)
            #expect(error?.status == 404)
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func plainHTTPIsRefusedBeforeAnyRequestWhenHTTPSOnly() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: MediaPolicy(destinationDirectory: directory))
            #expect(fetcher.policy.allowInsecureHTTP == false)
            let error = await Self.failure(
                fetcher, PushMedia(source: .remote(url: server.url("/image.png")), kind: .image))
            #expect(error?.code == .insecureURL)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aRedirectToPlainHTTPIsRefusedWhenHTTPSOnly() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            // Only 127.0.0.1 has an exception (like an ATS exception domain); the redirect goes to localhost.
            var policy = MediaPolicy(destinationDirectory: directory)
            policy.insecureHTTPHosts = ["127.0.0.1"]
            let fetcher = MediaFetcher(policy: policy)
            let error = await Self.failure(
                fetcher, PushMedia(source: .remote(url: server.url("/to-localhost")), kind: .image))
            #expect(error?.code == .insecureRedirect)
            #expect(server.requests == ["/to-localhost"])
            #expect(MediaFixtures.contents(of: directory).isEmpty)

            let allowed = try await fetcher.fetch(
                PushMedia(source: .remote(url: server.url("/to-loopback")), kind: .image))
            #expect(allowed.typeHint == "public.png")
            #expect(server.requests == ["/to-localhost", "/to-loopback", "/image.png"])
        }
    }

    @Test func redirectsBeyondTheLimitFail() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            var policy = Self.policy(directory)
            policy.maximumRedirects = 3
            let error = await Self.failure(
                MediaFetcher(policy: policy), PushMedia(source: .remote(url: server.url("/loop")), kind: .image))
            #expect(error?.code == .tooManyRedirects)
            #expect(server.requests.count == 4)
        }
    }

    @Test func contentOfNoAttachableTypeIsUnknown() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            for path in ["/error-page.jpg", "/mystery"] {
                let error = await Self.failure(fetcher, PushMedia(source: .remote(url: server.url(path)), kind: .image))
                #expect(error?.code == .unknownType, "\(path)")
            }
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func aVideoDeclaredButAPictureReceivedIsAMismatch() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let error = await Self.failure(
                fetcher, PushMedia(source: .remote(url: server.url("/image.png")), kind: .video))
            #expect(error?.code == .typeMismatch)
            #expect(error?.message == "the payload declares video but the content is image (public.png)")
            #expect(MediaFixtures.contents(of: directory).isEmpty)
        }
    }

    @Test func imageAndGIFAdaptToWhatWasReceived() async throws {
        try await Self.withServer(in: scratch.url) { server, directory in
            let fetcher = MediaFetcher(policy: Self.policy(directory))
            let gif = try await fetcher.fetch(PushMedia(source: .remote(url: server.url("/animation")), kind: .image))
            #expect(gif.kind == .gif)
            #expect(gif.typeHint == "com.compuserve.gif")
            #expect(gif.fileURL.pathExtension == "gif")
            let png = try await fetcher.fetch(PushMedia(source: .remote(url: server.url("/image.png")), kind: .gif))
            #expect(png.kind == .image)
        }
    }

    @Test(arguments: ["ftp://example.com/a.png", "not a url", "https://", "https:///path.png"])
    func malformedURLsAreInvalid(_ url: String) async throws {
        let directory = scratch.url
        let error = await Self.failure(
            MediaFetcher(policy: MediaPolicy(destinationDirectory: directory)),
            PushMedia(source: .remote(url: url), kind: .image))
        #expect(error?.code == .invalidURL)
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        // Bind a port, then free it, so nothing listens there.
        let server = try MediaTestServer()
        let url = server.url("/image.png")
        await server.shutdown()
        let directory = scratch.url
        let error = await Self.failure(
            MediaFetcher(policy: Self.policy(directory)), PushMedia(source: .remote(url: url), kind: .image))
        #expect(error?.code == .transport)
    }
}
