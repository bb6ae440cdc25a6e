import Foundation
import TidingsHTTP
import TidingsModel

extension APIService {
    /// `GET /v1/users/{user_id}/tags`.
    func getTags(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try tagCaller(request)
        return tagsResponse(userID, try store.tags(appID: caller.appID, userID: userID))
    }

    /// `PUT /v1/users/{user_id}/tags`: replaces the user's tags with `{"tags":[...]}`.
    func replaceTags(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try tagCaller(request)
        let tags = try tagList(request)
        let stored = try storeCall {
            try store.replaceTags(appID: caller.appID, userID: userID, tags: tags, limits: configuration.tagLimits)
        }
        return tagsResponse(userID, stored)
    }

    /// `POST /v1/users/{user_id}/tags`: adds `{"tags":[...]}` to the user's tags.
    func addTags(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try tagCaller(request)
        let tags = try tagList(request)
        let stored = try storeCall {
            try store.addTags(appID: caller.appID, userID: userID, tags: tags, limits: configuration.tagLimits)
        }
        return tagsResponse(userID, stored)
    }

    /// `DELETE /v1/users/{user_id}/tags`: removes every tag of the user.
    func removeAllTags(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try tagCaller(request)
        return tagsResponse(userID, try store.removeTags(appID: caller.appID, userID: userID, tags: nil))
    }

    /// `DELETE /v1/users/{user_id}/tags/{tag}`: removes one tag.
    func removeTag(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try tagCaller(request)
        let tag = try parameter(request, "tag")
        guard configuration.tagLimits.isValid(tag) else { throw invalidTag(tag) }
        return tagsResponse(userID, try store.removeTags(appID: caller.appID, userID: userID, tags: [tag]))
    }

    private func tagCaller(_ request: HTTPRequest) throws -> (APICaller, String) {
        let caller = try authenticate(request, .anyKey)
        let userID = try userParameter(request)
        try requireUserAccess(caller, userID: userID, request)
        return (caller, userID)
    }

    /// The `tags` array of the body, each tag checked, at most the per-user limit.
    private func tagList(_ request: HTTPRequest) throws -> Set<String> {
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        guard let array = body["tags"]?.arrayValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "tags must be an array of strings")
        }
        var tags = Set<String>()
        for element in array {
            guard let tag = element.stringValue else {
                throw HTTPError(status: 400, code: "invalid_field", message: "tags must be an array of strings")
            }
            guard configuration.tagLimits.isValid(tag) else { throw invalidTag(tag) }
            tags.insert(tag)
        }
        if tags.count > configuration.tagLimits.maximumPerUser {
            throw HTTPError(
                status: 422, code: "limit_exceeded",
                message:
                    "a user may have at most \(configuration.tagLimits.maximumPerUser) tags; the request has \(tags.count)"
            )
        }
        return tags
    }

    private func tagsResponse(_ userID: String, _ tags: [String]) -> HTTPResponse {
        json(["user_id": .string(userID), "tags": .array(tags.map(JSONValue.string))])
    }
}
