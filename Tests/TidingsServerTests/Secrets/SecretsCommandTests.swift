import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTestSupport

/// `tidingsd secrets generate-key|status|rotate` and a start without the key, run as an operator would.
@Suite struct SecretsCommandTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("secrets-command") }

    func tidingsd(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let (process, output, error) = try TidingsdProcessTests.start(arguments)
        return await TidingsdProcessTests.finish(process, output, error)
    }

    @Test func rotationReencryptsEveryValueAndTheOldKeyNoLongerOpensTheStore() async throws {
        let data = scratch.url.appendingPathComponent("data").path
        let oldKey = scratch.url.appendingPathComponent("old.key").path
        let newKey = scratch.url.appendingPathComponent("new.key").path
        let generated = try await tidingsd(["secrets", "generate-key", "--out", oldKey])
        #expect(generated.status == 0, "\(generated.error)")
        let old = try ServerConfiguration.readSecretsKey(path: oldKey)
        #expect(generated.output.contains(old.id))
        let mode = try FileManager.default.attributesOfItem(atPath: oldKey)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try await tidingsd(["secrets", "generate-key", "--out", oldKey]).status == 1, "never overwritten")

        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.secretsKey = .file(oldKey)
        do {
            let store = try configuration.openStore()
            try store.createApp(AppRecord(id: "app_1", name: "one", bundleID: "com.example.one", createdAt: 1))
            for provider in PushCredentialRecord.Provider.allCases {
                try store.savePushCredential(
                    PushCredentialRecord(
                        appID: "app_1", provider: provider, secret: Array("ROTATEDSECRET".utf8), settings: "{}",
                        updatedAt: 1))
            }
        }
        _ = try await tidingsd(["secrets", "generate-key", "--out", newKey])
        let new = try ServerConfiguration.readSecretsKey(path: newKey)

        let rotated = try await tidingsd([
            "secrets", "rotate", "--data-dir", data, "--secrets-key-file", oldKey, "--new-key-file", newKey,
        ])
        #expect(rotated.status == 0, "\(rotated.error)")
        #expect(rotated.output.contains("re-encrypted 2 secrets from key \(old.id) to key \(new.id)"))

        let status = try await tidingsd(["secrets", "status", "--data-dir", data, "--secrets-key-file", newKey])
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output.contains("encrypted with \(new.id)\t2"))
        #expect(status.output.contains("plaintext\t0"))

        let stale = try await tidingsd(["secrets", "status", "--data-dir", data, "--secrets-key-file", oldKey])
        #expect(stale.status == 1)
        #expect(stale.error.contains(new.id) && stale.error.contains("--secrets-key-file"))

        // Serving without any key: refused before listening, naming the flag.
        let serve = try await tidingsd(["--data-dir", data, "--listen", "127.0.0.1:0"])
        #expect(serve.status == 1)
        #expect(serve.error.contains("--secrets-key-file"), "\(serve.error)")
        #expect(!FileManager.default.fileExists(atPath: data + "/secrets.key"))
        for output in [generated, rotated, status, stale, serve] {
            #expect(!(output.output + output.error).contains(old.fileText.trimmingCharacters(in: .newlines)))
            #expect(!(output.output + output.error).contains(new.fileText.trimmingCharacters(in: .newlines)))
        }
    }

    @Test func rotatingTheGeneratedKeyReplacesItsFile() async throws {
        let data = scratch.url.appendingPathComponent("data").path
        let store = try ServerConfiguration(dataDirectory: data).openStore()
        try store.createApp(AppRecord(id: "app_1", name: "one", bundleID: "com.example.one", createdAt: 1))
        try store.savePushCredential(
            PushCredentialRecord(appID: "app_1", provider: .fcm, secret: Array("{}".utf8), settings: "{}", updatedAt: 1)
        )
        let newKey = scratch.url.appendingPathComponent("new.key").path
        _ = try await tidingsd(["secrets", "generate-key", "--out", newKey])
        let rotated = try await tidingsd(["secrets", "rotate", "--data-dir", data, "--new-key-file", newKey])
        #expect(rotated.status == 0, "\(rotated.error)")
        #expect(
            try ServerConfiguration.readSecretsKey(path: data + "/secrets.key")
                == ServerConfiguration.readSecretsKey(path: newKey))
        #expect(try await tidingsd(["secrets", "status", "--data-dir", data]).output.contains("plaintext\t0"))
        #expect(try await tidingsd(["secrets", "rotate", "--data-dir", data]).status == 2, "usage")
    }
}
