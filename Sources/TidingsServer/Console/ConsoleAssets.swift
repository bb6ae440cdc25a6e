import Foundation
import TidingsCrypto

/// The console's files, compiled into tidingsd so that one installed binary serves them: the sources are
/// in `console/` and `scripts/console-assets` writes them into ConsoleAssets+Files.swift (a test checks
/// the two agree). Each file is ready to send: bytes, content type and a strong ETag.
enum ConsoleAssets {
    struct Asset: Sendable {
        var body: Data
        var contentType: String
        /// The quoted SHA-256 of the body.
        var etag: String
    }

    static let assets: [String: Asset] = Dictionary(
        uniqueKeysWithValues: files.map { name, text in
            let body = Data(text.utf8)
            let etag = "\"" + SHA256Digest.hex(SHA256Digest.hash(Array(body)).prefix(16).map { $0 }) + "\""
            return (name, Asset(body: body, contentType: contentType(of: name), etag: etag))
        })

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        default: "text/plain; charset=utf-8"
        }
    }
}
