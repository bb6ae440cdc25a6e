/// Fetches a fresh user token (a JWT signed by the app's backend) for a user id.
///
/// The SDK calls it when a request that binds, changes or clears the user, or a tag call, needs a token it
/// does not hold in memory, and once more when the server says the token expired or is invalid. It may
/// throw (offline, signed out); the sync then fails with ``RegistrationError/userTokenUnavailable(userID:message:)``
/// and a later sync asks again.
public typealias UserTokenProvider = @Sendable (_ userID: String) async throws -> String
