import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `PUT /v1/installations/{installation_id}`: creates (201) or changes (200) an installation.
    func putInstallation(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        let update = try InstallationJSON.update(
            from: jsonObject(request, maximumBytes: configuration.maximumBodyBytes))
        let (installation, created) = try storeCall {
            try store.upsertInstallation(appID: caller.appID, installationID: installationID, update: update, now: now)
        }
        metrics.installationUpserted(created: created)
        return HTTPResponse(
            status: created ? 201 : 200, headers: ["Content-Type": "application/json"],
            body: InstallationJSON.data(installation))
    }

    /// `GET /v1/installations/{installation_id}`: the installation and its tokens.
    func getInstallation(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        guard let installation = try store.installation(appID: caller.appID, installationID: installationID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
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
        guard
            let installation = try store.removeToken(
                kind, appID: caller.appID, installationID: installationID, now: now)
        else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
        }
        return json(InstallationJSON.json(installation))
    }

    /// `GET /v1/installations?user_id=&tag=&cursor=&limit=`: a page of installations, for server keys.
    func listInstallations(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let limit = try pageLimit(request)
        var query = InstallationQuery(limit: limit + 1)
        query.userID = request.queryValue("user_id")
        if let tag = request.queryValue("tag") {
            guard configuration.tagLimits.isValid(tag) else { throw invalidTag(tag) }
            query.tag = tag
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
}
