import Foundation
import Testing
import TidingsCrypto
import TidingsModel

/// Inputs that are not a compact JWS at all: refused as `malformed`, never trapping, never verified.
@Suite("JWT malformed tokens")
struct JWTMalformedTokenTests {
    typealias F = JWTFixtures

    static func code(of token: String) -> JWTError.Code? {
        do {
            _ = try F.verifier.verify(token, audience: F.audience, now: F.now)
            return nil
        } catch {
            return error.code
        }
    }

    /// A valid token and the pieces to break it with.
    static func valid() throws -> (token: String, header: String, payload: String, signature: String) {
        let token = try F.es256Token()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return (token, parts[0], parts[1], parts[2])
    }

    enum Case: String, CaseIterable {
        case empty, oneSegment, twoSegments, fourSegments, emptyHeader, nonBase64Header, standardAlphabet, whitespace
        case paddedHeader, paddedSignature, paddedPayload, nonCanonicalTrailingBits, impossibleLength
        case nonJSONHeader, arrayHeader, stringHeader, nullHeader, nonBase64Payload, nonBase64Signature
        case huge, hugeHeader, deepHeader

        func token() throws -> String {
            let (token, header, payload, signature) = try JWTMalformedTokenTests.valid()
            switch self {
            case .empty: return ""
            case .oneSegment: return header
            case .twoSegments: return header + "." + payload
            case .fourSegments: return token + "." + signature
            case .emptyHeader: return "." + payload + "." + signature
            case .nonBase64Header: return "!!!!" + "." + payload + "." + signature
            case .standardAlphabet:
                return Data(F.decodedSegment(0, of: token)).base64EncodedString().replacingOccurrences(
                    of: "=", with: ""
                )
                .replacingOccurrences(of: "-", with: "+") + "/." + payload + "." + signature
            case .whitespace: return header + " ." + payload + "." + signature
            case .paddedHeader:
                return F.segment(text: #"{"alg":"ES256","kid":"ec-1"}"#) + "=." + payload + "." + signature
            case .paddedSignature: return token + "=="
            case .paddedPayload: return header + "." + payload + "====." + signature
            case .nonCanonicalTrailingBits:
                // 64 bytes leave four unused bits in the last character; set one and the bytes stay the same.
                let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
                let last = try #require(signature.last)
                let index = try #require(alphabet.firstIndex(of: last))
                return String(token.dropLast()) + String(alphabet[index | 1])
            // 86 + 3 characters: no byte string has a base64 length of 4n + 1.
            case .impossibleLength: return header + "." + payload + "." + signature + "AAA"
            case .nonJSONHeader: return F.segment(text: "alg=ES256") + "." + payload + "." + signature
            case .arrayHeader: return F.segment(text: #"["ES256"]"#) + "." + payload + "." + signature
            case .stringHeader: return F.segment(text: #""ES256""#) + "." + payload + "." + signature
            case .nullHeader: return F.segment(text: "null") + "." + payload + "." + signature
            case .nonBase64Payload: return header + ".e30*." + signature
            case .nonBase64Signature: return header + "." + payload + ".%%%"
            case .huge: return String(repeating: "a", count: JWTVerifier.maximumTokenSize + 1)
            case .hugeHeader:
                let header = try F.segment([
                    "alg": "ES256", "kid": "ec-1", "pad": .string(String(repeating: "x", count: 8192)),
                ])
                return header + "." + payload + "." + signature
            case .deepHeader:
                let nested = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
                return F.segment(text: #"{"alg":"ES256","x":"# + nested + "}") + "." + payload + "." + signature
            }
        }
    }

    @Test(arguments: Case.allCases)
    func isMalformed(_ kind: Case) throws {
        let token = try kind.token()
        #expect(Self.code(of: token) == .malformed)
    }

    @Test func theValidTokenTheCasesStartFromVerifies() throws {
        #expect(Self.code(of: try Self.valid().token) == nil)
    }

    @Test func everyTruncationIsRefused() throws {
        let token = try Self.valid().token
        for length in 0..<token.count {
            #expect(Self.code(of: String(token.prefix(length))) != nil, "prefix of \(length) characters verified")
        }
    }

    @Test func aTokenAtTheMaximumSizeIsRead() throws {
        let (_, _, payload, signature) = try Self.valid()
        func token(padding: Int) throws -> String {
            let header: JSONValue = [
                "alg": "ES256", "kid": "ec-1", "p": .string(String(repeating: "x", count: padding)),
            ]
            return try F.segment(header) + "." + payload + "." + signature
        }
        // Grow a header member until the token is as close to the limit as base64 allows.
        var padding = (JWTVerifier.maximumTokenSize - payload.count - signature.count) * 3 / 4
        while try token(padding: padding).utf8.count > JWTVerifier.maximumTokenSize { padding -= 1 }
        let largest = try token(padding: padding)
        #expect(largest.utf8.count > JWTVerifier.maximumTokenSize - 4)
        // Past the size check the header is read; the signature no longer matches it.
        #expect(Self.code(of: largest) == .badSignature)
        #expect(Self.code(of: try token(padding: padding + 3)) == .malformed)
    }
}
