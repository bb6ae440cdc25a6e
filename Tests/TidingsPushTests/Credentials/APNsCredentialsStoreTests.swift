import Foundation
import Testing
import TidingsModel

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsPush

@Suite("APNs credentials on disk")
struct APNsCredentialsStoreTests {
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-store-\(UUID().uuidString)")
    let key = ES256Key.generate()

    var store: APNsCredentialsStore { APNsCredentialsStore(dataDirectory: dataDirectory) }

    func writeFixture(_ text: String, name: String = "AuthKey_test-fixture.p8") throws -> String {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let url = dataDirectory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func saveLoadAndRemove() throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let file = try writeFixture(try #require(key.privateKeyPEM()))
        try store.save(appID: "app-1", keyFile: file, keyID: "KEY1234567", teamID: "TEAM123456")
        #expect(try mode(#require(store.directory).path) == 0o700)
        #expect(try mode(store.keyURL("app-1").path) == 0o600)
        #expect(try mode(store.metadataURL("app-1").path) == 0o600)

        let loaded = try #require(try store.load(appID: "app-1"))
        #expect(loaded.keyID == "KEY1234567")
        #expect(loaded.teamID == "TEAM123456")
        let header = try loaded.providerToken().authorizationHeader(now: Date())
        let verifier = ES256Verifier(keys: [.init(keyID: "KEY1234567", teamID: "TEAM123456", publicKey: key)])
        #expect(try verifier.verify(String(header.dropFirst(7)), now: Date()).teamID == "TEAM123456")

        #expect(try store.remove(appID: "app-1"))
        #expect(try store.load(appID: "app-1") == nil)
        #expect(try !store.remove(appID: "app-1"))
    }

    @Test func invalidInputStoresNothing() throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let privateFile = try writeFixture(try #require(key.privateKeyPEM()))
        let publicFile = try writeFixture(key.publicKeyPEM(), name: "public-test-fixture.pem")
        let cases: [(String, String, String, String, APNsCredentialError.Code)] = [
            ("app", "/nonexistent.p8", "KEY1234567", "TEAM123456", .unreadableFile),
            ("app", publicFile, "KEY1234567", "TEAM123456", .invalidKey),
            ("app", privateFile, "short", "TEAM123456", .invalidKeyID),
            ("app", privateFile, "KEY1234567", "TEAM-12345", .invalidTeamID),
            ("../app", privateFile, "KEY1234567", "TEAM123456", .storageFailed),
        ]
        for (appID, file, keyID, teamID, code) in cases {
            do {
                try store.save(appID: appID, keyFile: file, keyID: keyID, teamID: teamID)
                Issue.record("saved \(file) with \(keyID)/\(teamID)")
            } catch {
                #expect(error.code == code)
                #expect(!error.message.contains("BEGIN"))
            }
        }
        #expect(try store.load(appID: "app") == nil)
    }
}
