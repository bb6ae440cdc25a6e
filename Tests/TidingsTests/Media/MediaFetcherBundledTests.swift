import Foundation
import Testing
import Tidings
import TidingsTestSupport

/// `.bundled(name)` media: copied from the bundle directory, never moved.
@Suite("MediaFetcher bundled")
struct MediaFetcherBundledTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-media") }

    /// A new bundle directory holding `files`, and a new empty destination, both in this test's scratch directory.
    func directories(_ files: [String: Data]) throws -> (bundle: URL, destination: URL) {
        let bundle = try scratch.subdirectory()
        for (name, data) in files {
            try data.write(to: bundle.appendingPathComponent(name))
        }
        return (bundle, try scratch.subdirectory())
    }

    static func fetch(_ name: String, kind: PushMedia.Kind = .image, bundle: URL?, destination: URL)
        async -> Result<MediaAttachmentPlan, MediaFetchError>
    {
        let fetcher = MediaFetcher(policy: MediaPolicy(destinationDirectory: destination, bundleDirectory: bundle))
        do {
            return .success(try await fetcher.fetch(PushMedia(source: .bundled(name: name), kind: kind)))
        } catch {
            return .failure(error)
        }
    }

    @Test func aBundledPictureIsCopiedUnderAFreshName() async throws {
        let (bundle, destination) = try directories(["logo.png": MediaFixtures.png])
        let plan = try await Self.fetch("logo.png", bundle: bundle, destination: destination).get()
        #expect(plan.typeHint == "public.png")
        #expect(plan.byteCount == Int64(MediaFixtures.png.count))
        #expect(plan.fileURL.lastPathComponent != "logo.png")
        #expect(plan.fileURL.pathExtension == "png")
        #expect(try Data(contentsOf: plan.fileURL) == MediaFixtures.png)
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("logo.png").path))
    }

    @Test func aMissingBundledFileIsReported() async throws {
        let (bundle, destination) = try directories([:])
        let missing = await Self.fetch("nope.png", bundle: bundle, destination: destination)
        #expect(missing.failureCode == .bundledMissing)
        let noDirectory = await Self.fetch("nope.png", bundle: nil, destination: destination)
        #expect(noDirectory.failureCode == .bundledMissing)
        #expect(MediaFixtures.contents(of: destination).isEmpty)
    }

    @Test(arguments: ["../logo.png", "sub/logo.png", "..", ""])
    func aBundledNameMustBeAPlainFileName(_ name: String) async throws {
        let (bundle, destination) = try directories(["logo.png": MediaFixtures.png])
        #expect(await Self.fetch(name, bundle: bundle, destination: destination).failureCode == .invalidURL)
    }

    @Test func aBundledFileOverTheCapIsTooLarge() async throws {
        let big = MediaFixtures.png + Data(count: 5 * 1_048_576)
        let (bundle, destination) = try directories(["chime.png": big])
        let result = await Self.fetch("chime.png", kind: .image, bundle: bundle, destination: destination)
        #expect(result.failureCode == nil)
        let (audioBundle, audioDestination) = try directories([
            "chime.mp3": Data("ID3".utf8) + Data(count: 5 * 1_048_576)
        ])
        let audio = await Self.fetch("chime.mp3", kind: .audio, bundle: audioBundle, destination: audioDestination)
        #expect(audio.failureCode == .tooLarge)
        #expect(MediaFixtures.contents(of: audioDestination).isEmpty)
    }
}

extension Result where Failure == MediaFetchError {
    /// The error code, nil on success.
    var failureCode: MediaFetchError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
