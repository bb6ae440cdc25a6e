import TidingsHTTP
import TidingsModel
import TidingsStore

/// User profiles: custom attributes of a user rather than of one device, shared by every installation the user
/// is logged in on (`user.KEY` in audiences, `{{user.KEY}}` in templates). The same keys, values and limits as
/// an installation's attributes.
extension APIService {
    func userProfileRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/users/{user_id}/attributes") { try await self.getUserAttributes($0) },
            HTTPRoute("PUT", "/v1/users/{user_id}/attributes") {
                try await self.changeUserAttributes($0, replacing: true)
            },
            HTTPRoute("PATCH", "/v1/users/{user_id}/attributes") {
                try await self.changeUserAttributes($0, replacing: false)
            },
        ]
    }

    /// `GET /v1/users/{user_id}/attributes`: `{"user_id", "attributes", "updated_at"}`; `{}` and `null` for a
    /// user without any.
    func getUserAttributes(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (caller, userID) = try profileCaller(request)
        let profile = try store.userProfile(appID: caller.appID, userID: userID)
        return json(Self.profileJSON(userID, profile))
    }

    /// `PUT` replaces the user's attributes with the body's object; `PATCH` merges it (a value sets its key,
    /// `null` removes it, keys not named stay). A change to a key a journey is triggered by (`user.KEY`) is
    /// signalled in the write's transaction, for the user.
    func changeUserAttributes(_ request: HTTPRequest, replacing: Bool) async throws -> HTTPResponse {
        let (caller, userID) = try profileCaller(request)
        let limits = configuration.attributeLimits
        let changes = try InstallationJSON.attributeChanges(
            jsonObject(request, maximumBytes: configuration.maximumBodyBytes), limits: limits)
        let signals = try attributeChangeSignals(appID: caller.appID)
        let now = self.now
        let profile = try storeCall {
            try store.updateUserProfile(
                appID: caller.appID, userID: userID, now: now,
                signalling: { signals.signals(userID: userID, before: $0, after: $1, now: now) }
            ) { current in
                var attributes = replacing ? [:] : current
                for (key, value) in changes { attributes[key] = value }
                guard attributes.count <= limits.maximumCount else {
                    throw HTTPError(
                        status: 400, code: "too_many_attributes",
                        message:
                            "the user would have \(attributes.count) attributes; the limit is \(limits.maximumCount) per user"
                    )
                }
                return attributes
            }
        }
        return json(Self.profileJSON(userID, profile))
    }

    static func profileJSON(_ userID: String, _ profile: UserProfile?) -> JSONValue {
        .object([
            "user_id": .string(userID),
            "attributes": AttributeValue.json(profile?.attributes ?? [:]),
            "updated_at": profile.map { .integer($0.updatedAt) } ?? .null,
        ])
    }

    /// A server key, or an app key whose identity token is the user's (as for tags).
    private func profileCaller(_ request: HTTPRequest) throws -> (APICaller, String) {
        let caller = try authenticate(request, .anyKey)
        let userID = try userParameter(request)
        try requireUserAccess(caller, userID: userID, request)
        return (caller, userID)
    }
}
