import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `PUT /v1/installations/{installation_id}`: creates (201) or changes (200) an installation.
    ///
    /// With an app key, the installation belongs to the app instance that created it: the answer that creates
    /// it carries `installation_secret`, shown that once, and every later write must present it. An
    /// installation made before secrets existed claims one on its next write. Binding the installation to a
    /// user, changing or clearing it, needs a user token when the app's identity verification asks for one.
    ///
    /// The checks that need no store run here and throw; the upsert then joins the store's next group
    /// commit and `reply` gets its answer when that commits, so the network thread never waits for it.
    func putInstallation(
        _ request: HTTPRequest, reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) throws {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        let update = try InstallationJSON.update(
            from: jsonObject(request, maximumBytes: configuration.maximumBodyBytes),
            attributeLimits: configuration.attributeLimits)
        var verified: String?
        var app: AppRecord?
        if caller.kind == .app, update.changesUser {
            let found = try self.app(of: caller)
            if found.identityVerification != .off {
                app = found
                verified = try verifiedUser(request, app: found)
            }
        }
        // An app key naming a user erased since needs a fresh user token to bind it (docs/security.md). Read
        // here, not in `prepare`, which holds the store's write lock; whether the binding changes is known there.
        let refusesErasedUser = try refusesErasedUser(update, request, caller: caller, app: app)
        // Made before the store call, whether or not the installation turns out to need one: `prepare` runs
        // under the store's write lock, shared by every write of its group, and a grouped write may run twice
        // (both runs must issue the same secret). It was issued when the stored digest is its own.
        let fresh = caller.kind == .app ? Self.issueInstallationSecret() : nil
        let (identity, verifyingApp, limits) = (verified, app, configuration.attributeLimits)
        let changes = try attributeChangeSignals(appID: caller.appID)
        let now = self.now
        store.upsertInstallation(
            appID: caller.appID, installationID: installationID, now: now,
            prepare: { existing in
                var update = update
                try self.requireOwnership(of: existing, request, caller: caller)
                try InstallationJSON.checkAttributeCount(update, existing: existing, limits: limits)
                if let fresh, existing?.secretDigest == nil { update.secretDigest = .set(fresh.digest) }
                let before = existing?.userID
                let after = update.userID.applied(to: before)
                if refusesErasedUser, after != before { throw Self.userErasedRefusal() }
                if let app = verifyingApp, after != before, let user = after ?? before {
                    // Binding proves the new user; logging out proves the user who leaves.
                    try self.requireIdentity(of: user, verified: identity, caller: caller, app: app)
                }
                update.journeySignals = changes.signals(
                    update, existing: existing, installationID: installationID, now: now)
                return update
            },
            completion: { outcome in
                reply(
                    self.storeOutcome(outcome).map { installation, created in
                        self.metrics.installationUpserted(created: created)
                        let issued = fresh.flatMap { installation.secretDigest == $0.digest ? $0.secret : nil }
                        return HTTPResponse(
                            status: created ? 201 : 200, headers: ["Content-Type": "application/json"],
                            body: InstallationJSON.data(installation, secret: issued))
                    })
            })
    }

    /// `GET /v1/installations/{installation_id}`: the installation and its tokens.
    func getInstallation(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        guard let installation = try store.installation(appID: caller.appID, installationID: installationID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
        }
        try requireOwnership(of: installation, request, caller: caller)
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: InstallationJSON.data(installation))
    }

    /// `PATCH /v1/installations/{installation_id}/attributes`: merges custom attributes into an existing
    /// installation (a value sets its key, `null` removes it) and answers the installation.
    ///
    /// The same change as an `attributes` member of `PUT /v1/installations/{id}`, for a backend that knows a
    /// person's attributes but not the device's tokens.
    func patchAttributes(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        var update = InstallationUpdate()
        update.attributes = try InstallationJSON.attributeChanges(
            jsonObject(request, maximumBytes: configuration.maximumBodyBytes), limits: configuration.attributeLimits)
        let changes = try attributeChangeSignals(appID: caller.appID)
        let now = self.now
        let (installation, _) = try storeCall {
            try store.upsertInstallation(appID: caller.appID, installationID: installationID, now: now) { existing in
                guard existing != nil else {
                    throw HTTPError(
                        status: 404, code: "not_found", message: "there is no installation \(installationID)")
                }
                try requireOwnership(of: existing, request, caller: caller)
                try InstallationJSON.checkAttributeCount(
                    update, existing: existing, limits: configuration.attributeLimits)
                var signalled = update
                signalled.journeySignals = changes.signals(
                    update, existing: existing, installationID: installationID, now: now)
                return signalled
            }
        }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: InstallationJSON.data(installation))
    }

    /// `DELETE /v1/installations/{installation_id}/tokens/{token_type}`: unregisters one token.
    func deleteToken(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        let name = try parameter(request, "token_type")
        guard let kind = TokenType(rawValue: name) else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "token type must be apns, voip or fcm")
        }
        let existing = try store.installation(appID: caller.appID, installationID: installationID)
        try requireOwnership(of: existing, request, caller: caller)
        guard
            existing != nil,
            let installation = try store.removeToken(
                kind, appID: caller.appID, installationID: installationID, now: now)
        else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
        }
        return json(InstallationJSON.json(installation))
    }

    /// `GET /v1/installations?user_id=&tag=&cursor=&limit=`: a page of installations, for server keys.
    ///
    /// Device fields filter too, by exact value: `language=ja-JP`, `timezone=Asia/Tokyo`, `os_name=iOS`...
    /// (``InstallationQuery/Field``); an empty value (`timezone=`) finds installations where it is unknown.
    func listInstallations(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let limit = try pageLimit(request)
        var query = InstallationQuery(limit: limit + 1)
        if let userID = request.queryValue("user_id") {
            guard (1...256).contains(userID.utf8.count) else {
                throw HTTPError(status: 400, code: "invalid_parameter", message: "user_id must be 1 to 256 bytes")
            }
            query.userID = userID
        }
        if let tag = request.queryValue("tag") {
            guard configuration.tagLimits.isValid(tag) else { throw invalidTag(tag) }
            query.tag = tag
        }
        for field in InstallationQuery.Field.allCases {
            guard let value = request.queryValue(field.rawValue) else { continue }
            guard value.utf8.count <= 64 else {
                throw HTTPError(
                    status: 400, code: "invalid_parameter", message: "\(field.rawValue) must be at most 64 bytes")
            }
            query.fields[field] = value.isEmpty ? .some(nil) : value
        }
        query.afterInstallationID = try position(request, kind: "i")
        var installations = try store.installations(appID: caller.appID, query: query)
        var next: JSONValue = .null
        if installations.count > limit {
            installations.removeLast(installations.count - limit)
            next = .string(cursor(kind: "i", position: installations.last!.installationID))
        }
        return json(["installations": .array(installations.map(InstallationJSON.json)), "next_cursor": next])
    }

    func invalidTag(_ tag: String) -> HTTPError {
        HTTPError(
            status: 400, code: "invalid_tag",
            message:
                "tag '\(tag.prefix(80))' must be 1 to \(configuration.tagLimits.maximumLength) characters of A-Z a-z 0-9 _ . : -"
        )
    }

    /// The attribute keys the app's active journeys are triggered by, to signal in the write that changes them.
    func attributeChangeSignals(appID: String) throws -> AttributeChangeSignals {
        AttributeChangeSignals(appID: appID, triggerKeys: try journeyCatalog.journeys(appID: appID).attributeKeys)
    }
}
