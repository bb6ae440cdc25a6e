import Foundation
import TidingsCrypto
import TidingsModel

/// One app's APNs token credentials: its `.p8` signing key, key id and team id.
public struct APNsCredentials: Sendable {
    public var appID: String
    public var keyID: String
    public var teamID: String
    /// The private key. Never log it.
    public var key: ES256Key

    public init(appID: String, keyID: String, teamID: String, key: ES256Key) {
        self.appID = appID
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
    }

    /// A provider token signed with these credentials.
    public func providerToken(
        refreshAge: Duration = .seconds(50 * 60), clock: any TidingsClock = SystemClock()
    ) throws(APNsCredentialError) -> APNsProviderToken {
        try APNsProviderToken(
            key: key, configuration: .init(keyID: keyID, teamID: teamID, refreshAge: refreshAge), clock: clock)
    }
}
