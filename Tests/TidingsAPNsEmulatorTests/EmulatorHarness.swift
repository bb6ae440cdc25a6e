import Foundation
import TidingsModel
import TidingsTesting

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsPush

/// An emulator trusting one fresh key, a manual clock, and helpers to push to it in process.
struct EmulatorHarness {
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    let clock = ManualClock()
    let key = ES256Key.generate()
    let emulator: APNsEmulator
    let provider: APNsProviderToken
    let handler: HTTPHandler
    let payload = Data(#"{"aps":{"alert":"hi"}}"#.utf8)

    init(maximumStoredPerToken: Int = 100) {
        emulator = APNsEmulator(
            configuration: .init(
                keys: [.init(keyID: Self.keyID, teamID: Self.teamID, publicKey: key.publicKey())],
                topics: [EmulatorValidationTests.topic], maximumStoredPerToken: maximumStoredPerToken),
            clock: clock)
        // The key and ids are valid by construction.
        provider = try! APNsProviderToken(key: key, configuration: .init(keyID: Self.keyID, teamID: Self.teamID))
        handler = emulator.handler(logger: .disabled())
    }

    func baseHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers["authorization"] = try? provider.authorizationHeader(now: clock.now)
        headers["apns-topic"] = EmulatorValidationTests.topic
        return headers
    }

    /// Pushes with the standard headers, `headers` replacing them; `authorization: .some(nil)` sends none.
    func push(
        token: String = EmulatorValidationTests.token, headers extra: [String: String] = [:],
        authorization: String?? = .none, body: Data? = nil
    ) async throws -> HTTPResponse {
        var headers = baseHeaders()
        for (name, value) in extra { headers[name] = value }
        if case .some(let value) = authorization { headers["authorization"] = value }
        return try await handler(
            HTTPRequest(method: "POST", path: "/3/device/\(token)", headers: headers, body: body ?? payload))
    }

    func reason(_ response: HTTPResponse) throws -> String? {
        try JSONValue.parse(response.body)["reason"]?.stringValue
    }
}
