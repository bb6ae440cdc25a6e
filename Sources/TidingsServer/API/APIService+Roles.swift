import TidingsHTTP
import TidingsStore

/// The role matrix: what a console session's operator needs for each route (docs/console.md, "Roles").
///
/// Keys are not affected: their kind decides (docs/security.md). A route missing from the matrix refuses every
/// session (and a test walks every registered route for every role, so a new route must be entered here).
extension APIService {
    /// What a session needs for one route.
    enum SessionAccess: Sendable, Equatable {
        /// No session is needed: signing in, reading and ending one's own session.
        case anyone
        /// An operator with this role or a higher one.
        case role(OperatorRole)
    }

    static let viewer = SessionAccess.role(.viewer)
    static let editor = SessionAccess.role(.editor)
    static let admin = SessionAccess.role(.admin)

    /// `"METHOD pattern"` → what a session needs.
    static let roleMatrix: [String: SessionAccess] = [
        // Sessions and the audit log.
        "POST /v1/session": .anyone, "GET /v1/session": .anyone, "DELETE /v1/session": .anyone,
        "POST /v1/session/second-factor": .anyone,
        "GET /v1/audit": admin,
        // One's own two-factor sign-in.
        "GET /v1/session/two-factor": viewer,
        "POST /v1/session/two-factor/enrolment": viewer,
        "POST /v1/session/two-factor/confirmation": viewer,
        "POST /v1/session/two-factor/recovery-codes": viewer,
        "POST /v1/session/two-factor/disable": viewer,
        // Installations and their tokens, attributes and Live Activity tokens.
        // The list of installations is their user ids and attributes in bulk: not for viewers (one device's
        // page, found by search, is).
        "GET /v1/installations": editor,
        "GET /v1/installations/{installation_id}": viewer,
        "PUT /v1/installations/{installation_id}": editor,
        "PATCH /v1/installations/{installation_id}/attributes": editor,
        "DELETE /v1/installations/{installation_id}/tokens/{token_type}": editor,
        "GET /v1/installations/{installation_id}/timeline": viewer,
        "GET /v1/installations/{installation_id}/live-activities": viewer,
        "PUT /v1/installations/{installation_id}/live-activities/{activity_id}": editor,
        "DELETE /v1/installations/{installation_id}/live-activities/{activity_id}": editor,
        "PUT /v1/installations/{installation_id}/push-to-start-tokens/{attributes_type}": editor,
        "DELETE /v1/installations/{installation_id}/push-to-start-tokens/{attributes_type}": editor,
        "GET /v1/devices/search": viewer,
        // Users: tags, and the privacy routes. An export is a person's personal data in bulk: not for viewers.
        "GET /v1/users/{user_id}/tags": viewer,
        "PUT /v1/users/{user_id}/tags": editor,
        "POST /v1/users/{user_id}/tags": editor,
        "DELETE /v1/users/{user_id}/tags": editor,
        "DELETE /v1/users/{user_id}/tags/{tag}": editor,
        "GET /v1/users/{user_id}/export": editor,
        "DELETE /v1/users/{user_id}": editor,
        // User profiles (attributes of the user): read as tags are, written as they are.
        "GET /v1/users/{user_id}/attributes": viewer,
        "PUT /v1/users/{user_id}/attributes": editor,
        "PATCH /v1/users/{user_id}/attributes": editor,
        // Saved segments: read and counted as audiences are, written as messages are.
        "POST /v1/segments": editor,
        "GET /v1/segments": viewer,
        "GET /v1/segments/{segment_id}": viewer,
        "PUT /v1/segments/{segment_id}": editor,
        "DELETE /v1/segments/{segment_id}": editor,
        "GET /v1/segments/{segment_id}/count": viewer,
        // Bulk import writes installations, users and tags as their own routes do.
        "POST /v1/imports/{import_id}": editor,
        "GET /v1/imports/{import_id}": editor,
        // Events and statistics.
        "POST /v1/events": editor,
        // Events carry user ids, values and attributes; the list is also the CSV and NDJSON export.
        "GET /v1/events": editor,
        "GET /v1/campaigns/{campaign_id}/stats": viewer,
        "GET /v1/messages/{message_id}/stats": viewer,
        "GET /v1/stats/overview": viewer,
        "GET /v1/stats/messages": viewer,
        // Messages, audiences and sending.
        "POST /v1/messages": editor,
        "GET /v1/messages": viewer,
        "GET /v1/messages/{message_id}": viewer,
        "DELETE /v1/messages/{message_id}": editor,
        "POST /v1/lint": viewer,
        "POST /v1/audience": viewer,
        "POST /v1/audience/count": viewer,
        "POST /v1/uninstall-checks": editor,
        // Journeys, and the backend's events that drive them.
        "POST /v1/journeys": editor,
        "POST /v1/journeys:validate": viewer,
        "GET /v1/journeys": viewer,
        "GET /v1/journeys/{journey_id}": viewer,
        "PUT /v1/journeys/{journey_id}": editor,
        "POST /v1/journeys/{journey_id}/start": editor,
        "POST /v1/journeys/{journey_id}/pause": editor,
        "POST /v1/journeys/{journey_id}/archive": editor,
        "POST /v1/users/{user_id}/events": editor,
        "POST /v1/live-activities": editor,
        "GET /v1/live-activities/{activity_id}": viewer,
        // Administration: apps, keys, credentials, identity keys, send settings, forwarders, operators.
        "GET /v1/admin/apps": admin,
        "POST /v1/admin/apps": admin,
        "GET /v1/admin/apps/{app}": admin,
        "PATCH /v1/admin/apps/{app}": admin,
        "GET /v1/admin/apps/{app}/keys": admin,
        "POST /v1/admin/apps/{app}/keys": admin,
        "DELETE /v1/admin/keys/{key_id}": admin,
        "PUT /v1/admin/apps/{app}/apns": admin,
        "DELETE /v1/admin/apps/{app}/apns": admin,
        "PUT /v1/admin/apps/{app}/fcm": admin,
        "DELETE /v1/admin/apps/{app}/fcm": admin,
        "GET /v1/admin/apps/{app}/identity-keys": admin,
        "POST /v1/admin/apps/{app}/identity-keys": admin,
        "DELETE /v1/admin/apps/{app}/identity-keys/{key_id}": admin,
        "GET /v1/admin/apps/{app}/send-settings": admin,
        "PATCH /v1/admin/apps/{app}/send-settings": admin,
        "GET /v1/admin/apps/{app}/forwarders": admin,
        "POST /v1/admin/apps/{app}/forwarders": admin,
        "GET /v1/admin/apps/{app}/forwarders/{forwarder_id}": admin,
        "DELETE /v1/admin/apps/{app}/forwarders/{forwarder_id}": admin,
        "POST /v1/admin/apps/{app}/forwarders/{forwarder_id}/pause": admin,
        "POST /v1/admin/apps/{app}/forwarders/{forwarder_id}/resume": admin,
        "POST /v1/admin/apps/{app}/forwarders/{forwarder_id}/backfill": admin,
        "GET /v1/admin/apps/{app}/forwarders/{forwarder_id}/dead-letters": admin,
        "DELETE /v1/admin/apps/{app}/forwarders/{forwarder_id}/dead-letters": admin,
        "POST /v1/admin/apps/{app}/forwarders/{forwarder_id}/dead-letters/replay": admin,
        "GET /v1/admin/operators": admin,
        "POST /v1/admin/operators": admin,
        "PATCH /v1/admin/operators/{name}": admin,
        "DELETE /v1/admin/operators/{name}": admin,
        "POST /v1/admin/operators/{name}/password": admin,
        "DELETE /v1/admin/operators/{name}/two-factor": admin,
    ]

    /// `route` refusing a console session whose operator's role the matrix does not allow it (403 `forbidden`),
    /// or an admin who must enrol in two-factor sign-in first (403 `two_factor_enrolment_required`, but for
    /// ``enrolmentRoutes``), before its handler runs; requests with a key, and without a live session, go on to
    /// the handler as before.
    func roleChecked(_ route: HTTPRoute) -> HTTPRoute {
        let name = "\(route.method) \(route.pattern)"
        let access = Self.roleMatrix[name]
        let closedUntilEnrolled = !Self.enrolmentRoutes.contains(name)
        let check: @Sendable (HTTPRequest) throws -> Void = { request in
            guard access != .anyone, request.headers["Authorization"] == nil,
                ConsoleSessions.sessionID(request) != nil,
                let (_, account) = try? self.sessions.resolve(request, touch: false)
            else { return }
            if closedUntilEnrolled, try self.sessions.mustEnrol(account) {
                throw self.refuse(
                    403, "two_factor_enrolment_required",
                    "this server requires two-factor sign-in of admins: enrol in Settings (POST /v1/session/two-factor/enrolment) first"
                )
            }
            guard case .role(let needed) = access else {
                throw self.refuse(403, "forbidden", "\(route.method) \(route.pattern) is not open to console sessions")
            }
            guard account.role >= needed else {
                throw self.refuse(
                    403, "forbidden",
                    "\(route.method) \(route.pattern) needs the \(needed.rawValue) role; \(account.name) is \(account.role.rawValue)"
                )
            }
        }
        if let immediate = route.immediate {
            var wrapped = HTTPRoute.immediate(route.method, route.pattern) { request in
                try check(request)
                return try immediate(request)
            }
            wrapped.immediateRunsOn = route.immediateRunsOn
            return wrapped
        }
        if let replying = route.replying {
            return HTTPRoute.replying(route.method, route.pattern) { request, reply in
                try check(request)
                try replying(request, reply)
            }
        }
        let handler = route.handler
        return HTTPRoute(route.method, route.pattern) { request in
            try check(request)
            return try await handler(request)
        }
    }
}
