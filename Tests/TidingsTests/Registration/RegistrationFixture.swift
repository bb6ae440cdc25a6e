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

    /// The id a registrar moves to when the server says its id belongs to another secret.
    static let replacementID = UUID(uuidString: "0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9")!

    /// A registrar over this fixture's files; a second call plays the app launched again.
    func registrar(
        transport: (any HTTPTransport)? = nil, identity: UUID = installationID,
        _ configure: (inout InstallationRegistrar.Configuration) -> Void = { _ in }
    ) throws -> InstallationRegistrar {
        try InstallationRegistrar(
            configuration: configuration(configure), transport: transport ?? self.transport, clock: clock,
            random: FixedRandomNumberGenerator(value: .max),
            identity: InstallationIdentity(installationID: identity), makeInstallationID: { Self.replacementID })
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

    /// A secret of the server's shape whose 43 characters all equal `fill`.
    static func secret(_ fill: Character) -> String { "tdg_ins_" + String(repeating: fill, count: 43) }

    /// A 201 answer echoing the body, as the server answers the `PUT` that creates an installation, with the
    /// `installation_secret` it issues.
    static func created(secret: String) -> ScriptedTransport.Step {
        .handle { request in
            let echoed = echoResponse(request)
            var json = (try? JSONValue.parse(echoed.body))?.objectValue ?? [:]
            json["installation_id"] = .string(String(request.url.lastPathComponent))
            json["installation_secret"] = .string(secret)
            return TransportResponse(
                status: 201, headers: echoed.headers, body: (try? JSONValue.object(json).serialized()) ?? [])
        }
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
