import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsPush

/// Service-account files: what parses, what is refused with which typed error, and how they are stored.
@Suite("FCM service accounts")
struct FCMServiceAccountTests {
    static let key = ServiceAccountFixture.key

    static func document(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> [UInt8] {
        ServiceAccountFixture.document(change)
    }

    @Test func parsesAServiceAccount() throws {
        let account = try FCMServiceAccount(json: Self.document())
        #expect(account.projectID == "shop-prod")
        #expect(account.clientEmail == "fcm@shop-prod.iam.gserviceaccount.com")
        #expect(account.privateKeyID == "abc123")
        #expect(account.key.isPrivate)
        let defaulted = try FCMServiceAccount(json: Self.document { $0["token_uri"] = nil })
        #expect(defaulted.tokenURI == FCMServiceAccount.defaultTokenURI)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var code: FCMCredentialError.Code
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "truncated JSON", bytes: Array(document().prefix(40)), code: .malformedJSON),
        Malformed(name: "an array", bytes: Array("[1]".utf8), code: .malformedJSON),
        Malformed(name: "empty", bytes: [], code: .malformedJSON),
        Malformed(name: "no project_id", bytes: document { $0["project_id"] = nil }, code: .missingField),
        Malformed(name: "no client_email", bytes: document { $0["client_email"] = nil }, code: .missingField),
        Malformed(name: "no private_key", bytes: document { $0["private_key"] = nil }, code: .missingField),
        Malformed(name: "numeric project_id", bytes: document { $0["project_id"] = 42 }, code: .missingField),
        Malformed(name: "another type", bytes: document { $0["type"] = "authorized_user" }, code: .invalidField),
        Malformed(name: "project id with a slash", bytes: document { $0["project_id"] = "a/b" }, code: .invalidField),
        Malformed(name: "email without @", bytes: document { $0["client_email"] = "nobody" }, code: .invalidField),
        Malformed(name: "ftp token_uri", bytes: document { $0["token_uri"] = "ftp://x/token" }, code: .invalidField),
        Malformed(
            name: "garbage key", bytes: document { $0["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA" },
            code: .invalidKey),
        Malformed(
            name: "public key", bytes: document { $0["private_key"] = .string(key.publicKeyPEM()) }, code: .invalidKey),
        Malformed(
            name: "EC key", bytes: document { $0["private_key"] = .string(ES256Key.generate().privateKeyPEM() ?? "") },
            code: .notRSA),
        Malformed(
            name: "oversized", bytes: Array(repeating: 0x20, count: FCMServiceAccount.maximumFileBytes + 1),
            code: .malformedJSON),
    ]

    @Test(arguments: malformed) func refusesMalformedFilesWithTypedErrors(_ case: Malformed) throws {
        let error = #expect(throws: FCMCredentialError.self) { try FCMServiceAccount(json: `case`.bytes) }
        #expect(error?.code == `case`.code)
        #expect(error?.message.contains("BEGIN") == false, "messages never carry key material")
    }

    @Test func anUnreadableFileIsNamed() throws {
        let error = #expect(throws: FCMCredentialError.self) {
            try FCMServiceAccount(contentsOfFile: "/nonexistent/service-account.json")
        }
        #expect(error?.code == .unreadableFile)
        #expect(error?.message.contains("/nonexistent/service-account.json") == true)
    }

    @Test func rs256SignaturesVerifyOnlyWithTheKeyAndMessage() throws {
        let message = Array("header.claims".utf8)
        let signature = try Self.key.sign(message)
        #expect(signature.count == 256)
        #expect(Self.key.publicKey().verify(signature, for: message))
        #expect(!Self.key.publicKey().verify(signature, for: Array("header.claimz".utf8)))
        #expect(!RS256Key.generate().verify(signature, for: message))
        #expect(throws: KeyError.self) { try Self.key.publicKey().sign(message) }
    }

    @Test func storesACopyReadableOnlyByItsOwner() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-fcm-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("service-account.json")
        try Data(Self.document()).write(to: source)
        let store = FCMCredentialsStore(dataDirectory: directory)
        #expect(try store.load(appID: "app_1") == nil)
        try store.save(appID: "app_1", serviceAccountFile: source.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.fileURL("app_1").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: #require(store.directory).path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        #expect(try store.load(appID: "app_1")?.projectID == "shop-prod")

        let broken = directory.appendingPathComponent("broken.json")
        try Data(Self.document { $0["private_key"] = nil }).write(to: broken)
        #expect(throws: FCMCredentialError.self) { try store.save(appID: "app_2", serviceAccountFile: broken.path) }
        #expect(try store.load(appID: "app_2") == nil)
        #expect(throws: FCMCredentialError.self) { try store.save(appID: "../x", serviceAccountFile: source.path) }
        #expect(try store.remove(appID: "app_1"))
        #expect(try store.load(appID: "app_1") == nil)
    }
}
