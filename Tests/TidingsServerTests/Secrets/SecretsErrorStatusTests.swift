import Testing
import TidingsHTTP
import TidingsStore
import TidingsTesting

@testable import TidingsServer

/// A stored secret the server cannot open is the deployment's fault: 500 with an operator-facing message, never
/// the 409 of a conflict, and never the store's own words (docs/openapi.yaml, docs/security.md).
@Suite struct SecretsErrorStatusTests {
    func service() throws -> APIService {
        let harness = try APIHarness()
        return APIService(
            store: harness.store, configuration: harness.api.configuration, clock: harness.clock, logger: .disabled(),
            metrics: NoAPIMetrics())
    }

    @Test(arguments: [StoreError.Code.secretsKeyMissing, .secretUnreadable])
    func anUnreadableSecretIs500WithACodeAndAnOperatorFacingMessage(_ code: StoreError.Code) throws {
        let storeMessage =
            "the APNs key of app_main is sealed with key sk_2024 (--secrets-key-file); material 0xdeadbeef"
        let error = try service().httpError(StoreError(code: code, message: storeMessage))
        #expect(error.status == 500)
        #expect(error.code == code.rawValue)
        #expect(error.message.contains("operator"))
        #expect(!error.message.contains("deadbeef"))
        #expect(!error.message.contains("sk_2024"))
    }

    @Test func otherRefusalsKeepTheirStatus() throws {
        let service = try service()
        #expect(service.httpError(StoreError(code: .conflict, message: "taken")).status == 409)
        #expect(service.httpError(StoreError(code: .notFound, message: "none")).status == 404)
        #expect(service.httpError(StoreError(code: .limitExceeded, message: "limit 5")).status == 422)
    }
}
