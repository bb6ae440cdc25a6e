import Foundation
import Testing

@testable import TidingsServer

/// The QR code of TOTP enrolment: libqrencode's matrix, and the SVG drawn from it module for module.
@Suite struct QRCodeTests {
    static let uri =
        "otpauth://totp/Tidings:ada?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Tidings&algorithm=SHA1&digits=6&period=30"

    /// The dark modules the SVG's path paints, by reading its `M x y h w v1 h-w z` runs back.
    static func painted(_ svg: String) throws -> (size: Int, dark: Set<[Int]>) {
        let viewBox = try #require(svg.firstRange(of: "viewBox=\"0 0 ").map { svg[$0.upperBound...] })
        let size = try #require(Int(viewBox.prefix { $0.isNumber }))
        let path = try #require(svg.firstRange(of: " d=\"").map { svg[$0.upperBound...].prefix { $0 != "\"" } })
        var dark = Set<[Int]>()
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            #expect(numbers.count == 5 && numbers[3] == 1 && numbers[4] == -numbers[2], "\(run)")
            for x in numbers[0]..<(numbers[0] + numbers[2]) { dark.insert([x, numbers[1]]) }
        }
        return (size, dark)
    }

    @Test func theSVGPaintsExactlyTheMatrixsDarkModulesInsideAQuietZone() throws {
        let code = try QRCode(encoding: Self.uri)
        #expect(code.width == 17 + 4 * code.version)
        #expect(code.modules.count == code.width * code.width)
        let (size, dark) = try Self.painted(code.svg)
        #expect(size == code.width + 2 * QRCode.quietZone)
        var expected = Set<[Int]>()
        for y in 0..<code.width {
            for x in 0..<code.width where code.isDark(x: x, y: y) {
                expected.insert([x + QRCode.quietZone, y + QRCode.quietZone])
            }
        }
        #expect(dark == expected)
    }

    /// The three finder patterns: a dark 7×7 ring around a light ring around a dark 3×3 core.
    @Test func theMatrixHasItsFinderPatterns() throws {
        let code = try QRCode(encoding: Self.uri)
        for (left, top) in [(0, 0), (code.width - 7, 0), (0, code.width - 7)] {
            for y in 0..<7 {
                for x in 0..<7 {
                    let ring = max(abs(x - 3), abs(y - 3))
                    #expect(code.isDark(x: left + x, y: top + y) == (ring != 2), "finder at \(left),\(top): \(x),\(y)")
                }
            }
        }
        // An otpauth URI of this length needs more than version 1's 14 bytes at level M.
        #expect(code.version > 1)
    }

    @Test func textTooLongForAnyVersionIsRefused() {
        #expect(throws: QRCodeError.self) { try QRCode(encoding: String(repeating: "x", count: 5_000)) }
    }
}
