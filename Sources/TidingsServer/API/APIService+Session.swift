import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Console sessions as an alternative to API keys: a signed-in operator acts as the chosen app's server key
/// would (`X-Tidings-App`), limited by role, and as an admin key for the administration API when an admin.
/// Every write through a session carries the session's CSRF token, passes an `Origin` check, and is audited.
extension APIService {
    /// POSTs that change nothing: a viewer may make them, and they are not audited.
    static let readOnlyPosts: Set<String> = [
        "/v1/lint", "/v1/audience", "/v1/audience/count", "/v1/journeys/validate",
    ]
    /// The sign-in routes: audited by the handlers themselves, naming the operator the name or challenge is
    /// for (the request carries no credential yet).
    static let signInPaths: Set<String> = ["/v1/session", "/v1/session/second-factor"]

    /// The caller a session cookie authenticates, or nil when the request carries none.
    /// - Throws: 401 for an ended session; 403 for a write without the CSRF token, from another origin, or
    ///   beyond the operator's role; 400 when no app is chosen; 404 for an unknown app.
    func sessionCaller(_ request: HTTPRequest, _ access: Access) throws -> APICaller? {
        guard let (session, account) = try sessions.resolve(request) else { return nil }
        let isRead = request.method == "GET" || request.method == "HEAD"
        if !isRead { try sessions.checkWrite(request, session: session) }
        switch access {
        case .adminKey:
            guard account.role == .admin else {
                throw refuse(403, "forbidden", "only admin operators may manage apps, keys and credentials")
            }
            let key = APIKeyRecord(
                id: "operator:\(account.name)", appID: "", kind: .admin, hash: [], hint: "console session",
                createdAt: session.createdAt)
            return APICaller(appID: "", key: key)
        case .serverKey, .anyKey:
            guard let appID = request.headers[ConsoleSessions.appHeader], !appID.isEmpty else {
                throw HTTPError(
                    status: 400, code: "app_required",
                    message: "a console request must name its app in \(ConsoleSessions.appHeader)")
            }
            _ = try app(id: appID)
            if !isRead && !Self.readOnlyPosts.contains(request.path) && account.role < .editor {
                throw refuse(403, "forbidden", "viewers may read but not change app data or send")
            }
            let key = APIKeyRecord(
                id: "operator:\(account.name)", appID: appID, kind: .server, hash: [], hint: "console session",
                createdAt: session.createdAt)
            return APICaller(appID: appID, key: key)
        }
    }

    /// `route` with its writes recorded in the audit log, with how they ended: every route but GETs and the POSTs
    /// that change nothing, so a new route is audited unless it is named here (``audit(_:action:status:operatorName:)``
    /// decides who is recorded).
    func audited(_ route: HTTPRoute) -> HTTPRoute {
        let unaudited = Self.readOnlyPosts.union(Self.signInPaths)
        guard route.method != "GET", !unaudited.contains(route.pattern) else { return route }
        let action = "\(route.method) \(route.pattern)"
        if let immediate = route.immediate {
            var wrapped = HTTPRoute.immediate(route.method, route.pattern) { request in
                let outcome = Result { try immediate(request) }
                self.audit(request, action: action, status: Self.status(of: outcome))
                return try outcome.get()
            }
            wrapped.immediateRunsOn = route.immediateRunsOn
            return wrapped
        }
        if let replying = route.replying {
            return HTTPRoute.replying(route.method, route.pattern) { request, reply in
                do {
                    try replying(request) { outcome in
                        self.audit(request, action: action, status: Self.status(of: outcome))
                        reply(outcome)
                    }
                } catch {
                    self.audit(request, action: action, status: Self.status(of: .failure(error)))
                    throw error
                }
            }
        }
        let handler = route.handler
        return HTTPRoute(route.method, route.pattern) { request in
            let outcome: Result<HTTPResponse, any Error>
            do {
                outcome = .success(try await handler(request))
            } catch {
                outcome = .failure(error)
            }
            self.audit(request, action: action, status: Self.status(of: outcome))
            return try outcome.get()
        }
    }

    /// The status a handler's outcome is answered with.
    private static func status(of outcome: Result<HTTPResponse, any Error>) -> Int {
        switch outcome {
        case .success(let response): response.status
        case .failure(let error): (error as? HTTPError)?.status ?? 500
        }
    }

    /// Appends an audit entry for `request`: made with a live session, or with a key the store knows (revoked or
    /// refused ones too: the attempt is what is recorded). Requests with no credential or an unknown key are
    /// left to the access log; app keys only with ``TidingsAPI/Configuration/auditsAppKeyWrites``.
    func audit(_ request: HTTPRequest, action: String, status: Int, operatorName: String? = nil) {
        do {
            var entry = AuditEntry(
                at: now, operatorName: "", action: action, target: request.path,
                appID: request.headers[ConsoleSessions.appHeader], status: status, address: clientAddress(request))
            if let operatorName {
                entry.operatorName = operatorName
            } else if let authorization = request.headers["Authorization"] {
                guard let key = try auditedKey(authorization) else { return }
                entry.credential =
                    switch key.kind {
                    case .app: .appKey
                    case .server: .serverKey
                    case .admin: .adminKey
                    }
                entry.keyID = key.id
                entry.appID = key.kind == .admin ? nil : key.appID
            } else if ConsoleSessions.sessionID(request) != nil,
                let name = try? sessions.resolve(request, touch: false)?.1.name
            {
                entry.operatorName = name
            } else {
                return
            }
            entry.target = auditTarget(request, appID: entry.appID)
            try store.appendAudit(entry)
        } catch {
            // The write itself has happened; losing its record must at least be seen.
            logger.error("could not append to the audit log", metadata: ["action": action, "error": "\(error)"])
        }
    }

    /// The stored key `authorization` presents, when it is one the audit log records.
    private func auditedKey(_ authorization: String) throws -> APIKeyRecord? {
        guard let secret = Self.bearerCredential(authorization), let kind = APIKeySecret.kind(of: secret) else {
            return nil
        }
        // Checked before hashing: app-key device traffic is the hot path.
        if kind == .app && !configuration.auditsAppKeyWrites { return nil }
        let digest = SHA256Digest.hash(secret)
        guard let key = try lookUpKey(digest: digest), SHA256Digest.constantTimeEquals(key.hash, digest),
            key.kind == kind
        else { return nil }
        return key
    }

    func sessionRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/v1/session") { try await self.signIn($0) },
            HTTPRoute("POST", "/v1/session/second-factor") { try await self.completeSignIn($0) },
            HTTPRoute("GET", "/v1/session") { try await self.currentSession($0) },
            HTTPRoute("DELETE", "/v1/session") { try await self.signOut($0) },
            HTTPRoute("GET", "/v1/audit") { try await self.auditLog($0) },
        ]
    }

    /// `POST /v1/session`: `{"name", "password"}`; sets the session cookie and answers the CSRF token, or (with
    /// two-factor sign-in on) answers 202 and a challenge for `POST /v1/session/second-factor`.
    func signIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        try sessions.checkOrigin(request)
        let body = try jsonObject(request, maximumBytes: 8 * 1024)
        try Self.allowOnly(body, ["name", "password"])
        let name = try Self.requiredString(body, "name")
        let password = try Self.requiredString(body, "password")
        do {
            let outcome = try sessions.signIn(
                name: name, password: password, address: clientAddress(request),
                browserToken: ConsoleSessions.browserToken(request))
            switch outcome {
            case .signedIn(let signedIn):
                return try signedInResponse(request, signedIn)
            case .secondFactorRequired(let challenge, let expiresAt, let account):
                audit(request, action: "POST /v1/session", status: 202, operatorName: account.name)
                var response = json(
                    [
                        "second_factor_required": true, "challenge": .string(challenge),
                        "expires_at": .integer(expiresAt),
                    ], status: 202)
                response.headers["Cache-Control"] = "no-store"
                return response
            }
        } catch let error as HTTPError where error.status == 401 {
            if OperatorRecord.isValidName(name) {
                audit(request, action: "POST /v1/session", status: 401, operatorName: name)
            }
            throw error
        }
    }

    /// `POST /v1/session/second-factor`: `{"challenge", "code"}` (a TOTP code or a recovery code); completes
    /// the sign-in `POST /v1/session` answered 202, as a right password alone would have.
    func completeSignIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        try sessions.checkOrigin(request)
        let body = try jsonObject(request, maximumBytes: 8 * 1024)
        try Self.allowOnly(body, ["challenge", "code"])
        let challenge = try Self.requiredString(body, "challenge")
        let code = try Self.requiredString(body, "code")
        guard code.count <= 64 else {
            throw HTTPError(status: 400, code: "invalid_field", message: "code must be at most 64 characters")
        }
        let signedIn = try sessions.completeSignIn(
            challenge: challenge, code: code, address: clientAddress(request),
            browserToken: ConsoleSessions.browserToken(request)
        ) { name, status in
            self.audit(request, action: "POST /v1/session/second-factor", status: status, operatorName: name)
        }
        return try signedInResponse(request, signedIn, action: "POST /v1/session/second-factor")
    }

    /// 201 with the session, its cookie and the browser's trust cookie; audited and logged.
    private func signedInResponse(
        _ request: HTTPRequest, _ signedIn: ConsoleSessions.SignedIn, action: String = "POST /v1/session"
    ) throws -> HTTPResponse {
        audit(request, action: action, status: 201, operatorName: signedIn.account.name)
        logger.info("operator signed in", metadata: ["operator": signedIn.account.name])
        var response = json(try sessionJSON(signedIn.session, signedIn.account), status: 201)
        response.headers["Set-Cookie"] = sessions.cookie(signedIn.id)
        response.headers.add(name: "Set-Cookie", value: sessions.browserCookie(signedIn.browserToken))
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `GET /v1/session`: who is signed in, their CSRF token, and the apps they may choose.
    func currentSession(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let (session, account) = try sessions.resolve(request) else {
            throw refuse(401, "unauthorized", "no console session; sign in with POST /v1/session")
        }
        var response = json(try sessionJSON(session, account))
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `DELETE /v1/session`: ends the session (with its CSRF token) and clears the cookie.
    func signOut(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        response.headers["Set-Cookie"] = sessions.cookie(nil)
        guard let id = ConsoleSessions.sessionID(request) else { return response }
        let resolved: (OperatorSession, OperatorRecord)?
        do {
            resolved = try sessions.resolve(request, touch: false)
        } catch let error as HTTPError where error.status == 401 {
            return response
        }
        guard let (session, account) = resolved else { return response }
        try sessions.checkWrite(request, session: session)
        try store.removeSession(idDigest: SHA256Digest.hash(id))
        audit(request, action: "DELETE /v1/session", status: 204, operatorName: account.name)
        return response
    }

    private func sessionJSON(_ session: OperatorSession, _ account: OperatorRecord) throws -> JSONValue {
        let settings = sessions.settings
        let expires = min(
            session.createdAt + Int64(settings.absoluteTimeout * 1000),
            max(session.lastSeenAt, now) + Int64(settings.idleTimeout * 1000))
        return .object([
            "operator": .object(["name": .string(account.name), "role": .string(account.role.rawValue)]),
            "csrf_token": .string(session.csrfToken),
            "expires_at": .integer(expires),
            "idle_timeout_seconds": .integer(Int64(settings.idleTimeout)),
            "two_factor": .object([
                "enabled": .bool(try sessions.secondFactors.isEnabled(operatorName: account.name)),
                "enrolment_required": .bool(try sessions.mustEnrol(account)),
            ]),
            "apps": .array(
                try store.apps().map { .object(["id": .string($0.id), "name": .string($0.name)]) }),
        ])
    }

    /// `GET /v1/audit`: the audit log newest first, for admins; `cursor` pages back.
    func auditLog(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let limit = try pageLimit(request)
        let before = try position(request, kind: "a").map { text -> Int64 in
            guard let value = Int64(text) else {
                throw HTTPError(
                    status: 400, code: "invalid_cursor", message: "cursor is not one this endpoint gave out")
            }
            return value
        }
        let entries = try store.auditEntries(beforeSequence: before, limit: limit)
        let next: JSONValue =
            entries.count == limit ? .string(cursor(kind: "a", position: String(entries.last!.sequence))) : .null
        return json([
            "entries": .array(
                entries.map { entry in
                    .object([
                        "at": .integer(entry.at),
                        "operator": entry.credential == .operator ? .string(entry.operatorName) : .null,
                        "credential": .string(entry.credential.rawValue),
                        "key_id": entry.keyID.map(JSONValue.string) ?? .null,
                        "action": .string(entry.action), "target": .string(entry.target),
                        "app_id": entry.appID.map(JSONValue.string) ?? .null, "status": .integer(Int64(entry.status)),
                        "address": entry.address.map(JSONValue.string) ?? .null,
                    ])
                }),
            "next_cursor": next,
        ])
    }
}
