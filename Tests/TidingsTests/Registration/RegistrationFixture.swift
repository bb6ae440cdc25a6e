import Foundation
import Tidings
import TidingsTesting

/// A registrar over a fresh container directory, a scripted transport and a manual clock.
struct RegistrationFixture {
    static let endpoint = URL(string: "https://push.example.com")!
    static let appKey = "tdg_app_test"
    static let installationID = UUID(uuidString: "6F1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8")!

    let directory: URL
    let transport: ScriptedTransport
    let clock: ManualClock

    init(_ script: [ScriptedTransport.Step] = []) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-registration-\(UUID())")
        transport = ScriptedTransport(script)
        clock = ManualClock()
    }

    func configuration(
        _ configure: (inout InstallationRegistrar.Configuration) -> Void = { _ in }
    ) -> InstallationRegistrar.Configuration {
        var configuration = InstallationRegistrar.Configuration(
            endpoint: Self.endpoint, appKey: Self.appKey, containerDirectory: directory)
        configure(&configuration)
        return configuration
    }

    /// A registrar over this fixture's files; a second call plays the app launched again.
    func registrar(
        transport: (any HTTPTransport)? = nil,
        _ configure: (inout InstallationRegistrar.Configuration) -> Void = { _ in }
    ) throws -> InstallationRegistrar {
        try InstallationRegistrar(
            configuration: configuration(configure), transport: transport ?? self.transport, clock: clock,
            random: FixedRandomNumberGenerator(value: .max),
            identity: InstallationIdentity(installationID: Self.installationID))
    }

    var installationPath: String { "/v1/installations/\(Self.installationID.uuidString.lowercased())" }

    /// The JSON body of request `index`.
    func body(_ index: Int) throws -> JSONValue {
        try JSONValue.parse(transport.requests[index].body)
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A 32-byte token whose bytes all equal `fill`.
    static func token(_ fill: UInt8) -> [UInt8] { Array(repeating: fill, count: 32) }

    /// The lower-case hex of ``token(_:)``.
    static func hex(_ fill: UInt8) -> String {
        String(repeating: String(format: "%02x", fill), count: 32)
    }

    /// A 200 answer echoing the body of a `PUT` with an installation id, as the server does.
    static let echo: ScriptedTransport.Step = .handle { request in echoResponse(request) }

    /// The answer of ``echo``.
    static func echoResponse(_ request: TransportRequest) -> TransportResponse {
        var json = (try? JSONValue.parse(request.body))?.objectValue ?? [:]
        json["installation_id"] = .string(installationID.uuidString.lowercased())
        json["created_at"] = 1_800_000_000_000
        json["updated_at"] = 1_800_000_000_000
        let body = (try? JSONValue.object(json).serialized()) ?? []
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }

    /// `count` echo steps.
    static func echoes(_ count: Int) -> [ScriptedTransport.Step] { Array(repeating: echo, count: count) }

    /// An error answer with the server's JSON body.
    static func error(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:])
        -> ScriptedTransport.Step
    {
        let json: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
        return .respond(status: status, headers: headers, body: (try? json.serialized()) ?? [])
    }
}
