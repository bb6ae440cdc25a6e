import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Two-factor sign-in (TOTP, RFC 6238) for the signed-in operator, from the console's Settings page, and an
/// admin's reset of another operator's (docs/security.md, "Two-factor sign-in"). The secret is answered only
/// by the call that starts enrolment; recovery codes only by the call that makes them.
extension APIService {
    func twoFactorRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/session/two-factor") { try await self.twoFactorState($0) },
            HTTPRoute("POST", "/v1/session/two-factor/enrolment") { try await self.startTwoFactorEnrolment($0) },
            HTTPRoute("POST", "/v1/session/two-factor/confirmation") { try await self.confirmTwoFactor($0) },
            HTTPRoute("POST", "/v1/session/two-factor/recovery-codes") { try await self.regenerateRecoveryCodes($0) },
            HTTPRoute("POST", "/v1/session/two-factor/disable") { try await self.disableTwoFactor($0) },
            HTTPRoute("DELETE", "/v1/admin/operators/{name}/two-factor") { try await self.adminResetTwoFactor($0) },
        ]
    }

    /// The routes an admin who must enrol (``ConsoleSessionSettings/requireAdminTwoFactor``) may use.
    static let enrolmentRoutes: Set<String> = [
        "POST /v1/session", "GET /v1/session", "DELETE /v1/session", "POST /v1/session/second-factor",
        "GET /v1/session/two-factor", "POST /v1/session/two-factor/enrolment",
        "POST /v1/session/two-factor/confirmation",
    ]

    /// `GET /v1/session/two-factor`: whether it is on, enrolment under way, required, and recovery codes left.
    func twoFactorState(_ request: HTTPRequest) async throws -> HTTPResponse {
        let account = try signedInOperator(request)
        let factor = try storeCall { try store.secondFactor(operatorName: account.name) }
        var response = json([
            "enabled": .bool(factor?.isEnabled == true),
            "enrolling": .bool(factor.map { !$0.isEnabled } ?? false),
            "required": .bool(sessions.settings.requireAdminTwoFactor && account.role == .admin),
            "required_for_admins": .bool(sessions.settings.requireAdminTwoFactor),
            "recovery_codes_left": .integer(
                Int64(factor?.isEnabled == true ? try store.recoveryCodesLeft(operatorName: account.name) : 0)),
        ])
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `POST /v1/session/two-factor/enrolment`: a new secret, its `otpauth://` URI and QR code (SVG). Answered
    /// once; two-factor sign-in is on only after ``confirmTwoFactor(_:)``.
    func startTwoFactorEnrolment(_ request: HTTPRequest) async throws -> HTTPResponse {
        let account = try signedInOperator(request)
        if !request.body.isEmpty { try Self.allowOnly(try jsonObject(request, maximumBytes: 1024), []) }
        let enrolment = try storeCall { try sessions.secondFactors.begin(operatorName: account.name) }
        logger.info("two-factor enrolment started", metadata: ["operator": account.name])
        var response = json(
            [
                "secret": .string(enrolment.secret), "otpauth_uri": .string(enrolment.uri),
                "qr_svg": .string(enrolment.qrSVG),
            ], status: 201)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `POST /v1/session/two-factor/confirmation` `{"code"}`: turns two-factor sign-in on and answers the
    /// recovery codes, the only time they are shown.
    func confirmTwoFactor(_ request: HTTPRequest) async throws -> HTTPResponse {
        let account = try signedInOperator(request)
        let body = try jsonObject(request, maximumBytes: 1024)
        try Self.allowOnly(body, ["code"])
        let code = try Self.requiredString(body, "code")
        let buckets = try sessions.buckets(
            name: account.name, address: clientAddress(request), browserToken: ConsoleSessions.browserToken(request)
        ).all
        try sessions.throttle.check(buckets)
        let codes: [String]
        do {
            codes = try storeCall { try sessions.secondFactors.confirm(operatorName: account.name, code: code) }
        } catch let error as HTTPError where error.status == 401 {
            try sessions.throttle.fail(buckets)
            throw error
        }
        logger.info("two-factor sign-in turned on", metadata: ["operator": account.name])
        return recoveryCodesResponse(codes, status: 201)
    }

    /// `POST /v1/session/two-factor/recovery-codes` `{"password", "code"}`: new recovery codes replacing all
    /// the old ones, shown once.
    func regenerateRecoveryCodes(_ request: HTTPRequest) async throws -> HTTPResponse {
        let account = try signedInOperator(request)
        try reauthenticate(request, account)
        let codes = try storeCall { try sessions.secondFactors.regenerateRecoveryCodes(operatorName: account.name) }
        logger.info("recovery codes regenerated", metadata: ["operator": account.name])
        return recoveryCodesResponse(codes, status: 200)
    }

    /// `POST /v1/session/two-factor/disable` `{"password", "code"}`: turns two-factor sign-in off; refused for
    /// an admin while the server requires it of admins.
    func disableTwoFactor(_ request: HTTPRequest) async throws -> HTTPResponse {
        let account = try signedInOperator(request)
        if sessions.settings.requireAdminTwoFactor && account.role == .admin {
            throw HTTPError(
                status: 409, code: "two_factor_required",
                message: "this server requires two-factor sign-in of admins (--require-admin-2fa)")
        }
        try reauthenticate(request, account)
        _ = try storeCall { try store.removeSecondFactor(operatorName: account.name) }
        logger.info("two-factor sign-in turned off", metadata: ["operator": account.name])
        return HTTPResponse(status: 204)
    }

    /// `DELETE /v1/admin/operators/{name}/two-factor`: an admin's reset of an operator who lost their
    /// authenticator and recovery codes; they sign in with their password alone (and enrol again when required).
    func adminResetTwoFactor(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let name = try operatorName(request)
        try admin { try operators.resetTwoFactor(name: name) }
        logger.notice("two-factor sign-in reset by an admin", metadata: ["operator": name])
        return HTTPResponse(status: 204)
    }

    /// The operator of the request's console session; these routes are an operator's own, never a key's.
    /// - Throws: 401 without a live session; 403 for a write without the CSRF token or from another origin.
    private func signedInOperator(_ request: HTTPRequest) throws -> OperatorRecord {
        guard request.headers["Authorization"] == nil, let (session, account) = try sessions.resolve(request) else {
            throw refuse(401, "unauthorized", "two-factor settings are an operator's own: sign in to the console")
        }
        if request.method != "GET" { try sessions.checkWrite(request, session: session) }
        return account
    }

    /// Checks `{"password", "code"}` again before a change to the second factor itself, within the sign-in
    /// limits: a stolen session alone cannot turn it off or read new recovery codes.
    private func reauthenticate(_ request: HTTPRequest, _ account: OperatorRecord) throws {
        let body = try jsonObject(request, maximumBytes: 8 * 1024)
        try Self.allowOnly(body, ["password", "code"])
        let password = try Self.requiredString(body, "password")
        let code = try Self.requiredString(body, "code")
        let buckets = try sessions.buckets(
            name: account.name, address: clientAddress(request), browserToken: ConsoleSessions.browserToken(request)
        ).all
        try sessions.throttle.check(buckets)
        guard try sessions.secondFactors.isEnabled(operatorName: account.name) else {
            throw OperatorSecondFactors.notEnabled()
        }
        guard PasswordHash.verify(password, against: account.passwordHash) else {
            try sessions.throttle.fail(buckets)
            throw HTTPError(status: 401, code: "invalid_credentials", message: "the password is wrong")
        }
        guard try sessions.secondFactors.verify(operatorName: account.name, code: code) else {
            try sessions.throttle.fail(buckets)
            throw OperatorSecondFactors.invalidCode()
        }
    }

    private func recoveryCodesResponse(_ codes: [String], status: Int) -> HTTPResponse {
        var response = json(["recovery_codes": .array(codes.map(JSONValue.string))], status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
