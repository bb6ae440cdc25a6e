import Foundation
import Testing

@testable import TidingsPush

/// The on-disk rules both credential stores share: owner-only modes, app ids as file names, removal.
@Suite("Credential files")
struct CredentialFilesTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("credential-files-\(UUID().uuidString)")

    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func writesOwnerOnlyFilesInAnOwnerOnlyDirectory() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("apns")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try CredentialFiles.createDirectory(directory)
        #expect(try mode(directory) == 0o700)
        let file = directory.appendingPathComponent("app.json")
        try CredentialFiles.writePrivately(Data("one".utf8), to: file)
        try CredentialFiles.writePrivately(Data("two".utf8), to: file)
        #expect(try mode(file) == 0o600)
        #expect(FileManager.default.contents(atPath: file.path) == Data("two".utf8))
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["app.json"])
    }

    @Test func failuresNameThePath() throws {
        let missing = root.appendingPathComponent("missing/app.json")
        let error = #expect(throws: CredentialStorageError.self) {
            try CredentialFiles.writePrivately(Data("x".utf8), to: missing)
        }
        #expect(error?.message.hasPrefix("cannot create \(missing.path).tmp-") == true)
    }

    @Test func removesOnlyWhatExists() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try CredentialFiles.createDirectory(root)
        let present = root.appendingPathComponent("a.p8")
        let absent = root.appendingPathComponent("a.json")
        #expect(try !CredentialFiles.remove([present, absent]))
        try CredentialFiles.writePrivately(Data("k".utf8), to: present)
        #expect(try CredentialFiles.remove([absent, present]))
        #expect(!FileManager.default.fileExists(atPath: present.path))
    }

    @Test(arguments: ["", "../x", "a/b", "a.b", "app id", String(repeating: "a", count: 129), "é"])
    func refusesAppIDsThatAreNotPlainFileNames(appID: String) {
        #expect(
            throws: CredentialStorageError(message: "an app id must be 1...128 letters, digits, '-' or '_'")
        ) { try CredentialFiles.checkAppID(appID) }
    }

    @Test(arguments: ["a", "app_1", "App-2", String(repeating: "z", count: 128)])
    func acceptsPlainAppIDs(appID: String) throws {
        try CredentialFiles.checkAppID(appID)
    }

    @Test func storesReportStorageFailuresWithTheirOwnErrors() throws {
        #expect(throws: APNsCredentialError(.storageFailed, "an app id must be 1...128 letters, digits, '-' or '_'")) {
            try APNsCredentialsStore(dataDirectory: root).remove(appID: "../x")
        }
        #expect(throws: FCMCredentialError(.storageFailed, "an app id must be 1...128 letters, digits, '-' or '_'")) {
            try FCMCredentialsStore(dataDirectory: root).load(appID: "")
        }
    }
}
