import Foundation
import TidingsModel

extension MediaFormat {
    /// How many leading bytes ``sniff(_:)`` needs.
    public static let sniffLength = 16

    /// The format the leading bytes of a file show, from its magic numbers; nil when none matches.
    ///
    /// Recognised: JPEG `FF D8 FF`, PNG `89 50 4E 47`, GIF `GIF8`, ISO media `ftyp` boxes (HEIC `heic`/`heix`/
    /// `mif1`/`msf1`, M4A `M4A `, QuickTime `qt  `, any other brand MPEG-4 video), MP3 (`ID3` or an MPEG audio
    /// frame sync), WAV `RIFF….WAVE`, AVI `RIFF….AVI `, AIFF `FORM….AIFF`/`AIFC`, CAF `caff`, MPEG program
    /// stream `00 00 01 BA`.
    public static func sniff(_ head: some Collection<UInt8>) -> MediaFormat? {
        let bytes = Array(head.prefix(sniffLength))
        func matches(_ pattern: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + pattern.count && Array(bytes[offset..<offset + pattern.count]) == pattern
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { matches(Array(text.utf8), at: offset) }

        if matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF8") { return .gif }
        if ascii("ftyp", at: 4), bytes.count >= 12 {
            switch String(decoding: bytes[8..<12], as: UTF8.self) {
            case "heic", "heix", "heim", "heis", "mif1", "msf1": return .heic
            case "M4A ", "M4B ": return .mpeg4Audio
            case "qt  ": return .quickTime
            default: return .mpeg4Video
            }
        }
        if ascii("RIFF"), ascii("WAVE", at: 8) { return .wave }
        if ascii("RIFF"), ascii("AVI ", at: 8) { return .avi }
        if ascii("FORM"), ascii("AIFF", at: 8) || ascii("AIFC", at: 8) { return .aiff }
        if ascii("caff") { return .caf }
        if matches([0x00, 0x00, 0x01, 0xBA]) { return .mpegVideo }
        if ascii("ID3") { return .mp3 }
        // An MPEG audio frame: 11 sync bits, then a layer other than the reserved 00 (which ADTS AAC uses).
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, (bytes[1] >> 1) & 0x03 != 0 { return .mp3 }
        return nil
    }

    /// The format of a downloaded or bundled file, deciding between what its bytes, its server and its name say.
    ///
    /// Magic bytes win. Without a match, the `Content-Type` decides, then the extensions in order (the URL's,
    /// then the payload's). A body the server calls text, JSON, XML or HTML (an error page served with 200)
    /// is never taken on the word of its URL.
    ///
    /// - Returns: nil when nothing names an attachable format.
    static func identify(head: some Collection<UInt8>, contentType: String?, extensions: [String]) -> MediaFormat? {
        if let sniffed = sniff(head) { return sniffed }
        if let contentType {
            if let named = named(mimeType: contentType) { return named }
            let lowered = contentType.lowercased()
            let textual = ["text/", "/json", "+json", "/xml", "+xml", "/html", "/javascript"]
            if textual.contains(where: { lowered.contains($0) }) { return nil }
        }
        for candidate in extensions {
            if let named = named(fileExtension: candidate) { return named }
        }
        return nil
    }

    /// The kind to attach when the payload declared `declared` and the content is `self`.
    ///
    /// The rule: the same kind is kept; image and GIF are swapped freely (both are images to iOS, with
    /// the same cap, and servers often mislabel animations); any other disagreement (a video declared,
    /// a picture received) is a `type_mismatch`, because the payload's author expected something else.
    func reconciled(withDeclared declared: PushMedia.Kind) throws(MediaFetchError) -> PushMedia.Kind {
        if kind == declared { return kind }
        let pictures: Set<PushMedia.Kind> = [.image, .gif]
        if pictures.contains(kind), pictures.contains(declared) { return kind }
        throw MediaFetchError(
            code: .typeMismatch,
            message: "the payload declares \(declared.rawValue) but the content is \(kind.rawValue) (\(typeIdentifier))"
        )
    }
}
