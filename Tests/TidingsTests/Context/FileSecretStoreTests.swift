import Foundation
import Testing
import Tidings

@Suite struct FileSecretStoreTests {
    static let secret = InstallationSecret("tdg_ins_" + String(repeating: "x", count: 43))!

    static func withStore(_ body: (FileSecretStore) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-secret-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(FileSecretStore(directory: directory))
    }

    @Test func storedSecretIsPrivateAndAnsweredOnlyForItsID() throws {
        try Self.withStore { store in
            #expect(try store.secret(for: "id-1") == nil)
            try store.setSecret(Self.secret, for: "id-1")
            #expect(try store.secret(for: "id-1") == Self.secret)
            #expect(try store.secret(for: "id-2") == nil)
            let attributes = try FileManager.default.attributesOfItem(atPath: store.file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            // No draft is left behind next to it.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == [FileSecretStore.fileName])
        }
    }

    @Test func aNewSecretReplacesTheOldAndNilRemovesIt() throws {
        try Self.withStore { store in
            try store.setSecret(Self.secret, for: "id-1")
            let other = InstallationSecret("tdg_ins_" + String(repeating: "y", count: 43))!
            try store.setSecret(other, for: "id-2")
            #expect(try store.secret(for: "id-1") == nil)
            #expect(try store.secret(for: "id-2") == other)
            try store.setSecret(nil, for: "id-2")
            #expect(try store.secret(for: "id-2") == nil)
            #expect(!FileManager.default.fileExists(atPath: store.file.path))
            try store.setSecret(nil, for: "id-2")
        }
    }

    @Test func unreadableFileIsAStorageError() throws {
        try Self.withStore { store in
            try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
            try Data(#"{"installation_id":"id-1","secret":"tdg_ins_short"}"#.utf8).write(to: store.file)
            #expect {
                try store.secret(for: "id-1")
            } throws: { error in
                (error as? RegistrationError)?.code == "storage_failed"
            }
        }
    }

    @Test(arguments: [
        ("tdg_ins_" + String(repeating: "A", count: 43), true),
        ("tdg_ins_" + String(repeating: "-", count: 21) + String(repeating: "_", count: 22), true),
        ("tdg_ins_" + String(repeating: "A", count: 42), false),
        ("tdg_ins_" + String(repeating: "A", count: 44), false),
        ("tdg_ins_" + String(repeating: "A", count: 42) + "+", false),
        ("tdg_app_" + String(repeating: "A", count: 43), false),
    ])
    func secretShape(text: String, valid: Bool) {
        #expect((InstallationSecret(text) != nil) == valid)
    }

    @Test func secretNeverPrintsItsValue() {
        #expect("\(Self.secret)" == "tdg_ins_<redacted>")
        #expect(String(reflecting: Self.secret) == "tdg_ins_<redacted>")
        #expect(!"\([Self.secret])".contains("xxxx"))
    }
}
