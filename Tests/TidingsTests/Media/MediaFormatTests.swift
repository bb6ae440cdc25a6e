import Foundation
import Testing

@testable import Tidings

/// Sniffing by magic bytes, and the order of evidence when the bytes say nothing.
@Suite("MediaFormat")
struct MediaFormatTests {
    static func ascii(_ text: String, then bytes: [UInt8] = []) -> [UInt8] { Array(text.utf8) + bytes }

    static let samples: [(name: String, head: [UInt8], format: MediaFormat)] = [
        ("jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], .jpeg),
        ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        ("gif", ascii("GIF89a"), .gif),
        ("heic", [0, 0, 0, 0x18] + ascii("ftypheic"), .heic),
        ("heif mif1", [0, 0, 0, 0x18] + ascii("ftypmif1"), .heic),
        ("mp4", [0, 0, 0, 0x20] + ascii("ftypisom"), .mpeg4Video),
        ("mov", [0, 0, 0, 0x14] + ascii("ftypqt  "), .quickTime),
        ("m4a", [0, 0, 0, 0x20] + ascii("ftypM4A "), .mpeg4Audio),
        ("mp3 id3", ascii("ID3", then: [3, 0]), .mp3),
        ("mp3 frame", [0xFF, 0xFB, 0x90, 0x64], .mp3),
        ("wav", ascii("RIFF", then: [0x24, 0, 0, 0]) + ascii("WAVEfmt "), .wave),
        ("avi", ascii("RIFF", then: [0x24, 0, 0, 0]) + ascii("AVI LIST"), .avi),
        ("aiff", ascii("FORM", then: [0, 0, 0, 0x24]) + ascii("AIFFCOMM"), .aiff),
        ("caf", ascii("caff", then: [0, 1, 0, 0]), .caf),
        ("mpeg", [0x00, 0x00, 0x01, 0xBA, 0x44], .mpegVideo),
    ]

    @Test(arguments: samples.indices)
    func magicBytesNameTheFormat(_ index: Int) {
        let sample = Self.samples[index]
        #expect(MediaFormat.sniff(sample.head) == sample.format, "\(sample.name)")
    }

    @Test(arguments: [
        [UInt8](), [0xFF], [0xFF, 0xF1, 0x50], Array("<html>".utf8), Array("RIFF\0\0\0\0WEBP".utf8),
    ])
    func unknownOrTruncatedBytesNameNothing(_ head: [UInt8]) {
        #expect(MediaFormat.sniff(head) == nil)
    }

    @Test func theUTTypesAreApplesIdentifiers() {
        #expect(MediaFormat.jpeg.typeIdentifier == "public.jpeg")
        #expect(MediaFormat.gif.typeIdentifier == "com.compuserve.gif")
        #expect(MediaFormat.mpeg4Video.typeIdentifier == "public.mpeg-4")
        #expect(MediaFormat.mp3.typeIdentifier == "public.mp3")
    }

    @Test func withoutMagicTheContentTypeThenTheExtensionDecide() {
        let unknown = [UInt8](repeating: 7, count: 16)
        #expect(MediaFormat.identify(head: unknown, contentType: "image/jpeg; q=1", extensions: ["mp3"]) == .jpeg)
        #expect(
            MediaFormat.identify(head: unknown, contentType: "application/octet-stream", extensions: ["MP3"]) == .mp3)
        #expect(MediaFormat.identify(head: unknown, contentType: nil, extensions: ["", ".m4a"]) == .mpeg4Audio)
        #expect(MediaFormat.identify(head: unknown, contentType: "text/html", extensions: ["jpg"]) == nil)
        #expect(MediaFormat.identify(head: unknown, contentType: nil, extensions: ["txt"]) == nil)
        #expect(MediaFormat.identify(head: MediaFixtures.png, contentType: "text/html", extensions: ["mp4"]) == .png)
    }

    @Test(arguments: PushMedia.Kind.allCases)
    func theSameKindAlwaysPasses(_ kind: PushMedia.Kind) throws {
        let format = MediaFormat.all.first { $0.kind == kind }!
        #expect(try format.reconciled(withDeclared: kind) == kind)
    }

    @Test func onlyPicturesAdapt() throws {
        #expect(try MediaFormat.gif.reconciled(withDeclared: .image) == .gif)
        #expect(try MediaFormat.png.reconciled(withDeclared: .gif) == .image)
        #expect(throws: MediaFetchError.self) { try MediaFormat.png.reconciled(withDeclared: .video) }
        #expect(throws: MediaFetchError.self) { try MediaFormat.mp3.reconciled(withDeclared: .video) }
        #expect(throws: MediaFetchError.self) { try MediaFormat.mpeg4Video.reconciled(withDeclared: .audio) }
    }
}
