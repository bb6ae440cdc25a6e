import Foundation
import Testing

@testable import TidingsCrypto

struct Base64URLTests {
    /// Foundation's base64 with the URL alphabet and no padding, as RFC 4648 §5 defines it.
    private func reference(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    @Test func encodesEveryLengthAndByteAsTheRFCAlphabetDoes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base64URL.encode(bytes) == reference(bytes), "length \(length)")
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        let everyByte = (0...255).map(UInt8.init)
        #expect(Base64URL.encode(everyByte) == reference(everyByte))
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([UInt8]()) == "")
    }

    @Test func encodesTheRFCTestVectors() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (text, encoded) in vectors {
            #expect(Base64URL.encode(Array(text.utf8)) == encoded)
        }
    }
}
