import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Console operators through the administration API (admin keys and admin operators): what `tidingsd users`
/// does on the server's host, for the console's Settings page. A password is never shown back; one the
/// server generates is answered once.
extension APIService {
    func operatorRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/admin/operators") { try await self.adminListOperators($0) },
            idempotent(
                HTTPRoute("POST", "/v1/admin/operators") { try await self.adminCreateOperator($0) }, .adminKey,
                secretFields: ["password"]),
            HTTPRoute("PATCH", "/v1/admin/operators/{name}") { try await self.adminUpdateOperator($0) },
            HTTPRoute("POST", "/v1/admin/operators/{name}/password") { try await self.adminResetPassword($0) },
            HTTPRoute("DELETE", "/v1/admin/operators/{name}") { try await self.adminRemoveOperator($0) },
        ]
    }

    func adminListOperators(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let enrolled = try storeCall { try store.operatorsWithSecondFactor() }
        return json([
            "operators": .array(
                try admin { try operators.list() }.map { Self.operatorJSON($0, twoFactor: enrolled.contains($0.name)) })
        ])
    }

    /// `POST /v1/admin/operators` `{"name", "role", "password"?}`: without a password the server makes one and
    /// answers it once.
    func adminCreateOperator(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["name", "role", "password"])
        let name = try Self.requiredString(body, "name")
        let role = try Self.role(body)
        let (password, generated) = try Self.password(body)
        let record = try admin { try operators.create(name: name, role: role, password: password) }
        logger.info("operator created", metadata: ["operator": name, "role": role.rawValue])
        guard case .object(var object) = Self.operatorJSON(record) else { return json(.null) }
        if generated { object["password"] = .string(password) }
        return json(.object(object), status: 201)
    }

    /// `PATCH /v1/admin/operators/{name}` `{"role"}`: ends the operator's sessions so the role applies at once.
    func adminUpdateOperator(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let name = try operatorName(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["role"])
        let role = try Self.role(body)
        if role != .admin { try keepAnAdmin(besides: name) }
        let record = try admin { try operators.setRole(name: name, role: role) }
        logger.info("operator role changed", metadata: ["operator": name, "role": role.rawValue])
        return json(
            Self.operatorJSON(record, twoFactor: try storeCall { try store.operatorsWithSecondFactor() }.contains(name))
        )
    }

    /// `POST /v1/admin/operators/{name}/password` `{"password"?}`: ends the operator's sessions; a generated
    /// password is answered once.
    func adminResetPassword(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let name = try operatorName(request)
        let body = request.body.isEmpty ? [:] : try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["password"])
        let (password, generated) = try Self.password(body)
        try admin { try operators.resetPassword(name: name, password: password) }
        logger.info("operator password reset", metadata: ["operator": name])
        var answer: [String: JSONValue] = ["name": .string(name)]
        if generated { answer["password"] = .string(password) }
        return json(.object(answer))
    }

    func adminRemoveOperator(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let name = try operatorName(request)
        try keepAnAdmin(besides: name)
        try admin { try operators.remove(name: name) }
        logger.info("operator removed", metadata: ["operator": name])
        return HTTPResponse(status: 204)
    }

    var operators: OperatorAdministration { OperatorAdministration(store: store, clock: clock) }

    func operatorName(_ request: HTTPRequest) throws -> String {
        guard let name = request.pathParameters["name"], OperatorRecord.isValidName(name) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "name must be 1 to 64 characters of letters, digits and ._@-")
        }
        return name
    }

    /// Refuses to demote or remove `name` when it is the last admin: nobody could manage the server then.
    private func keepAnAdmin(besides name: String) throws {
        let admins = try admin { try operators.list() }.filter { $0.role == .admin }
        if admins.count == 1, admins[0].name == name {
            throw HTTPError(
                status: 409, code: "last_admin",
                message: "\(name) is the last admin operator; make another admin first")
        }
    }

    private static func role(_ body: [String: JSONValue]) throws -> OperatorRole {
        let text = try requiredString(body, "role")
        guard let role = OperatorRole(rawValue: text) else {
            throw HTTPError(status: 400, code: "invalid_field", message: "role must be admin, editor or viewer")
        }
        return role
    }

    /// The given password, or a generated one (then `generated` is true).
    private static func password(_ body: [String: JSONValue]) throws -> (password: String, generated: Bool) {
        guard let value = body["password"], !value.isNull else {
            return (OperatorAdministration.generatePassword(), true)
        }
        guard let password = value.stringValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "password must be a string")
        }
        return (password, false)
    }

    /// An operator as the API shows them; `two_factor` whether their two-factor sign-in is on.
    static func operatorJSON(_ record: OperatorRecord, twoFactor: Bool = false) -> JSONValue {
        [
            "name": .string(record.name), "role": .string(record.role.rawValue),
            "created_at": .integer(record.createdAt),
            "two_factor": .bool(twoFactor),
        ]
    }
}
