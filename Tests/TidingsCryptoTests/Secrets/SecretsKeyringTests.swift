import Foundation
import Testing
import TidingsCrypto

/// AES-256-GCM envelopes of the store's secrets: what opens them, and everything that must not.
@Suite struct SecretsKeyringTests {
    static let context = "push_credentials/app_1/apns"
    static let pem = Array("-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMG\n-----END PRIVATE KEY-----\n".utf8)

    @Test func aSealedValueOpensWithItsKeyAndContextAndHidesThePlaintext() throws {
        let keyring = SecretsKeyring(sealingKey: .generate())
        let sealed = try keyring.seal(Self.pem, context: Self.context)
        #expect(try keyring.open(sealed, context: Self.context) == Self.pem)
        #expect(Array(sealed.prefix(5)) == Array("TDSE".utf8) + [1], "magic and version first")
        #expect(SecretsKeyring.keyID(of: sealed) == keyring.keyID, "the key id follows")
        #expect(sealed.count == 4 + 1 + 8 + 12 + Self.pem.count + 16)
        #expect(!Data(sealed).contains(Data("PRIVATE KEY".utf8)))
        let again = try keyring.seal(Self.pem, context: Self.context)
        #expect(Array(again[13..<25]) != Array(sealed[13..<25]), "a fresh nonce for every value")
        #expect(again != sealed)
        #expect(try keyring.open(keyring.seal([], context: Self.context), context: Self.context) == [])
    }

    @Test func anotherContextIsRefusedAsTampered() throws {
        let keyring = SecretsKeyring(sealingKey: .generate())
        let sealed = try keyring.seal(Self.pem, context: Self.context)
        let error = #expect(throws: SecretsKeyError.self) {
            try keyring.open(sealed, context: "push_credentials/app_2/apns")
        }
        #expect(error?.code == .tampered)
    }

    @Test func anotherKeyIsRefusedNamingBothKeyIDs() throws {
        let first = SecretsKeyring(sealingKey: .generate())
        let second = SecretsKeyring(sealingKey: .generate())
        let sealed = try first.seal(Self.pem, context: Self.context)
        let error = #expect(throws: SecretsKeyError.self) { try second.open(sealed, context: Self.context) }
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains(first.keyID) == true)
        #expect(error?.message.contains(second.keyID) == true)
        // A keyring holding the old key as well opens it, and seals with the new one.
        let both = SecretsKeyring(sealingKey: second.sealingKey, olderKeys: [first.sealingKey])
        #expect(try both.open(sealed, context: Self.context) == Self.pem)
        #expect(SecretsKeyring.keyID(of: try both.seal(Self.pem, context: Self.context)) == second.keyID)
    }

    @Test func everyAlteredByteIsRefused() throws {
        let keyring = SecretsKeyring(sealingKey: .generate())
        let sealed = try keyring.seal(Array("whsec_0123456789".utf8), context: Self.context)
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: SecretsKeyError.self, "byte \(index)") {
                try keyring.open(altered, context: Self.context)
            }
        }
        for length in 0..<sealed.count {
            #expect(throws: SecretsKeyError.self, "truncated to \(length)") {
                try keyring.open(Array(sealed.prefix(length)), context: Self.context)
            }
        }
    }

    @Test func keyIDInTheHeaderIsAuthenticated() throws {
        // A header rewritten to name another key of the keyring still fails: the header is additional data.
        let old = SecretsKey.generate()
        let keyring = SecretsKeyring(sealingKey: .generate(), olderKeys: [old])
        var sealed = try keyring.seal(Self.pem, context: Self.context)
        let oldID = try SecretsKeyring(sealingKey: old).seal([], context: "x")[5..<13]
        sealed.replaceSubrange(5..<13, with: oldID)
        let error = #expect(throws: SecretsKeyError.self) { try keyring.open(sealed, context: Self.context) }
        #expect(error?.code == .tampered)
    }

    @Test func plaintextIsNotAnEnvelope() {
        #expect(!SecretsKeyring.isSealed(Self.pem))
        #expect(!SecretsKeyring.isSealed(Array(#"{"type":"service_account"}"#.utf8)))
        #expect(SecretsKeyring.keyID(of: Self.pem) == nil)
        #expect(throws: SecretsKeyError.self) {
            try SecretsKeyring(sealingKey: .generate()).open(Self.pem, context: Self.context)
        }
    }

    @Test func keysAreReadAsBase64OrHexAndNeverEchoed() throws {
        let key = SecretsKey.generate()
        #expect(try SecretsKey(text: key.fileText) == key)
        #expect(try SecretsKey(text: "  " + key.fileText + "\n\n") == key)
        let bytes = Array(0..<32).map(UInt8.init)
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(try SecretsKey(text: hex) == SecretsKey(bytes: bytes))
        #expect(try SecretsKey(text: hex.uppercased()) == SecretsKey(bytes: bytes))
        let urlSafe = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(try SecretsKey(text: urlSafe) == SecretsKey(bytes: bytes))
        for bad in [
            "", "c2hvcnQ=", String(hex.dropLast(2)), Data(Array(repeating: 7, count: 31)).base64EncodedString(),
        ] {
            let error = #expect(throws: SecretsKeyError.self) { try SecretsKey(text: bad) }
            #expect(error?.code == .invalidKey)
            if !bad.isEmpty { #expect(error?.message.contains(bad) == false) }
        }
        #expect(!"\(key)".contains(key.fileText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect("\(key)".contains(key.id))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(dumped.contains(key.id) && !dumped.contains("bytes"))
        #expect(key.id.count == 16)
        #expect(SecretsKey.generate().id != key.id)
    }
}
