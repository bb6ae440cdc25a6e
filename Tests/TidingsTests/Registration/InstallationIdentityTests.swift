import Foundation
import Testing
import Tidings

@Suite struct InstallationIdentityTests {
    @Test func idIsMadeOnceAndReadBack() throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let first = try InstallationIdentity.loadOrCreate(in: fixture.directory)
        let second = try InstallationIdentity.loadOrCreate(in: fixture.directory) {
            Issue.record("a second id was made")
            return UUID()
        }
        #expect(first == second)
        #expect(first.installationID == first.installationID.lowercased())
        #expect(UUID(uuidString: first.installationID) != nil)
    }

    @Test func idComesFromTheInjectedSource() throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let identity = try InstallationIdentity.loadOrCreate(in: fixture.directory) {
            RegistrationFixture.installationID
        }
        #expect(identity.installationID == "6f1a2b3c-4d5e-4f60-8172-93a4b5c6d7e8")
    }

    @Test func racingCreatorsAgreeOnOneID() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let directory = fixture.directory
        let ids = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? InstallationIdentity.loadOrCreate(in: directory).installationID }
            }
            var ids: [String?] = []
            for await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.count == 8)
        #expect(!ids.contains(nil))
        #expect(Set(ids).count == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == [InstallationIdentity.fileName])
    }

    @Test func fileThatIsNotAnIDIsAStorageError() throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(
            to: fixture.directory.appendingPathComponent(InstallationIdentity.fileName))
        #expect {
            try InstallationIdentity.loadOrCreate(in: fixture.directory)
        } throws: { error in
            (error as? RegistrationError)?.code == "storage_failed"
        }
    }
}
