import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsPush

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The emulator over a real socket: signed pushes with URLSession, then a device long-polls them back.
@Suite("APNs emulator: loopback")
struct EmulatorLoopbackTests {
    @Test func pushesOverHTTPAndLongPollsThemBack() async throws {
        let key = ES256Key.generate()
        let emulator = APNsEmulator(
            configuration: .init(
                keys: [.init(keyID: "KEY1234567", teamID: "TEAM123456", publicKey: key.publicKey())],
                topics: ["com.example.app"]))
        let server = try LoopbackServer(routes: emulator.router.routes)
        let provider = try APNsProviderToken(key: key, configuration: .init(keyID: "KEY1234567", teamID: "TEAM123456"))
        let token = String(repeating: "5a", count: 32)
        let session = URLSession(configuration: .ephemeral)

        func push(_ body: String, authorization: String?) async throws -> (Int, Data) {
            var request = URLRequest(url: server.url("/3/device/\(token)"))
            request.httpMethod = "POST"
            request.setValue(authorization, forHTTPHeaderField: "authorization")
            request.setValue("com.example.app", forHTTPHeaderField: "apns-topic")
            request.httpBody = Data(body.utf8)
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        }

        let header = try provider.authorizationHeader()
        #expect(try await push(#"{"aps":{"alert":"one"}}"#, authorization: header).0 == 200)
        #expect(try await push(#"{"aps":{"alert":"two"}}"#, authorization: header).0 == 200)
        let refused = try await push(#"{"aps":{"alert":"three"}}"#, authorization: nil)
        #expect(refused.0 == 403)
        #expect(try JSONValue.parse(refused.1)["reason"] == "MissingProviderToken")

        let (data, _) = try await session.data(from: server.url("/emulator/devices/\(token)/notifications?wait=5"))
        let alerts = try JSONValue.parse(data)["notifications"]?.arrayValue?.map { $0["payload"]?["aps"]?["alert"] }
        #expect(alerts == [.string("one"), .string("two")])

        let (empty, _) = try await session.data(from: server.url("/emulator/devices/\(token)/notifications?wait=0.2"))
        #expect(try JSONValue.parse(empty) == ["notifications": []])
        await server.server.shutdown()
    }
}
