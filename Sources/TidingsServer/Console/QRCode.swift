import CQRencode

/// A QR code's module matrix from libqrencode (error correction level M, byte mode), drawn as a small SVG
/// for the console's TOTP enrolment: the page shows it without fetching a script or calling another site.
struct QRCode: Sendable {
    /// 1 to 40; a version-v code is `17 + 4v` modules wide.
    let version: Int
    /// Modules per side, without the quiet zone.
    let width: Int
    /// Row by row, `true` for a dark module.
    let modules: [Bool]

    /// The quiet zone readers need around a code, in modules (ISO/IEC 18004 asks for 4).
    static let quietZone = 4

    /// - Throws: ``QRCodeError`` when libqrencode refuses `text` (too long for version 40, or out of memory).
    init(encoding text: String) throws {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw QRCodeError(message: "cannot encode \(text.utf8.count) bytes as a QR code")
        }
        defer { QRcode_free(code) }
        version = Int(code.pointee.version)
        width = Int(code.pointee.width)
        // libqrencode's least significant bit of each byte is the module's colour; the others describe its role.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The code as SVG: one white square and one path, each run of dark modules in a row one rectangle, with
    /// the quiet zone inside the view box. Sized by the page (`width` and `height` are left to CSS).
    var svg: String {
        let size = width + 2 * Self.quietZone
        var path = ""
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < width, isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
