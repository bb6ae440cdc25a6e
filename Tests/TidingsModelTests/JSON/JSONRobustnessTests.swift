import Foundation
import Testing
import TidingsModel

/// Round trips, drip-fed and corrupted input, and agreement with Foundation's parser.
@Suite struct JSONRobustnessTests {
    /// Payload-shaped documents: what prefixes and corruption are applied to.
    static let documents: [String] = [
        #"{"aps":{"alert":{"title":"Sale","body":"50% off — today only ✓"},"badge":3,"sound":"default","#
            + #""mutable-content":1,"category":"PROMO"},"tidings":{"id":"01HX3","media":"https:\/\/x.test\/a.png","#
            + #""ratio":0.75,"n":-12,"big":12345678901234567890,"tags":["a","b"],"none":null,"ok":true}}"#,
        "[\n  1,\n  -0.5e-3,\n  \"\\ud83d\\ude00 \\u00e9\\n\",\n  {\"k\": [false, null, {}]}\n]",
        #"{"m":{"nested":[[[[{"deep":"𝄞"}]]]],"esc":"\"\\\/\b\f\n\r\t","e":1E+2}}"#,
    ]

    @Test func randomValuesSurviveARoundTrip() throws {
        var generator = SeededGenerator(seed: 2024)
        for round in 0..<400 {
            let value = JSONValue.random(depth: 4, using: &generator)
            let sorted = round % 3 == 0
            let pretty = round % 5 == 0
            let bytes = try value.serialized(sortedKeys: sorted, prettyPrinted: pretty)
            let parsed = try JSONValue.parse(bytes)
            #expect(parsed == value, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            if sorted {
                #expect(try parsed.serialized(sortedKeys: true, prettyPrinted: pretty) == bytes)
            }
        }
    }

    @Test(arguments: documents)
    func everyProperPrefixEndsUnexpectedly(_ document: String) throws {
        let bytes = Array(document.utf8)
        #expect(throws: Never.self) { try JSONValue.parse(bytes) }
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(prefix) }
            let allowed: Set<JSONParseError.Code> = [.unexpectedEnd, .emptyInput]
            #expect(
                error.map { allowed.contains($0.code) } == true,
                "prefix of \(length) bytes: \(String(describing: error))")
            if error?.code == .unexpectedEnd {
                #expect(error?.offset == length)
            }
        }
    }

    @Test(arguments: documents)
    func randomCorruptionNeverCrashesAndErrorsPointInsideTheInput(_ document: String) throws {
        var generator = SeededGenerator(seed: UInt64(document.utf8.count))
        let original = Array(document.utf8)
        for _ in 0..<1_500 {
            var bytes = original
            for _ in 0...Int.random(in: 0..<3, using: &generator) {
                bytes.corrupt(using: &generator)
            }
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes)
            } catch {
                #expect((0...bytes.count).contains(error.offset))
                #expect(error.line >= 1 && error.column >= 1)
                #expect(!error.message.isEmpty)
                continue
            }
            #expect(try JSONValue.parse(value.serialized()) == value)
        }
    }

    @Test func agreesWithJSONSerializationOnWhatIsValid() throws {
        var corpus = Self.documents.map { Array($0.utf8) }
        corpus += JSONParserTests.validDocuments.map { Array($0.text.utf8) }
        // Foundation accepts trailing commas; every other invalid document is invalid to both.
        corpus += JSONParserTests.invalidDocuments.map(\.bytes).filter { !$0.hasTrailingComma }
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<300 {
            var bytes = Self.documents[Int.random(in: 0..<Self.documents.count, using: &generator)].utf8.map { $0 }
            bytes.corrupt(using: &generator)
            if !bytes.hasTrailingComma { corpus.append(bytes) }
        }
        for bytes in corpus {
            let ours = (try? JSONValue.parse(bytes)) != nil
            let foundation =
                (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
            #expect(ours == foundation, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }

    @Test func agreesWithJSONSerializationOnValues() throws {
        for document in Self.documents {
            let ours = try JSONValue.parse(document)
            let object = try JSONSerialization.jsonObject(with: Data(document.utf8), options: .fragmentsAllowed)
            let foundationText = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            // Foundation's numbers lose the integer/double distinction, so compare after its own round trip
            // through our parser, number by number.
            let theirs = try JSONValue.parse(foundationText)
            #expect(ours.numericallyEqual(to: theirs), "\(document)")
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether a `,` is followed, after whitespace, by `]` or `}` anywhere (strings included, to be safe).
    var hasTrailingComma: Bool {
        var index = 0
        while index < count {
            if self[index] == UInt8(ascii: ",") {
                var next = index + 1
                while next < count && [0x20, 0x09, 0x0A, 0x0D].contains(self[next]) { next += 1 }
                if next < count && (self[next] == UInt8(ascii: "]") || self[next] == UInt8(ascii: "}")) { return true }
            }
            index += 1
        }
        return false
    }

    /// Flips, inserts, deletes or duplicates a random byte (biased towards JSON punctuation).
    mutating func corrupt(using generator: inout SeededGenerator) {
        let interesting: [UInt8] = Array(#"{}[]:,"\-+.eE0u"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF, 0x20]
        let position = isEmpty ? 0 : Int.random(in: 0..<count, using: &generator)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0 where !isEmpty:
            self[position] = interesting.randomElement(using: &generator)!
        case 1:
            insert(interesting.randomElement(using: &generator)!, at: position)
        case 2 where !isEmpty:
            remove(at: position)
        default:
            if !isEmpty { self[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator) }
        }
    }
}

extension JSONValue {
    /// A random value whose strings use the whole Unicode range, control characters included.
    static func random(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let kind = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &generator)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            let magnitudes: [Int64] = [9, 999, 1 << 31, 1 << 53, .max]
            let magnitude = magnitudes.randomElement(using: &generator)!
            return .integer(.random(in: -magnitude...magnitude, using: &generator))
        case 3:
            if Bool.random(using: &generator) { return .double(.random(in: -1e6...1e6, using: &generator)) }
            while true {
                let double = Double(bitPattern: generator.next())
                if double.isFinite { return .double(double) }
            }
        case 4, 5: return .string(randomString(using: &generator))
        case 6:
            let count = Int.random(in: 0..<5, using: &generator)
            return .array((0..<count).map { _ in random(depth: depth - 1, using: &generator) })
        default:
            let count = Int.random(in: 0..<5, using: &generator)
            var object: [String: JSONValue] = [:]
            for _ in 0..<count {
                object[randomString(using: &generator)] = random(depth: depth - 1, using: &generator)
            }
            return .object(object)
        }
    }

    private static func randomString(using generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 0..<12, using: &generator)
        var scalars = String.UnicodeScalarView()
        while scalars.count < length {
            let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0...0x1F, 0x80...0x7FF, 0x800...0xFFFF, 0x10000...0x10FFFF]
            let range = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// Equality that treats `.integer(n)` and `.double(Double(n))` as the same number.
    func numericallyEqual(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)): return Double(a) == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.numericallyEqual(to: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map(value.numericallyEqual) ?? false }
        default: return self == other
        }
    }
}
