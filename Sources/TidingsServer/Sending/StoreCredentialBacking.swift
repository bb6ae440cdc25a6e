import Foundation
import TidingsCrypto
import TidingsModel
import TidingsPush
import TidingsStore

/// Keeps the apps' APNs and FCM credentials in tidingsd's store (``PushCredentialStore``), so every instance
/// sharing it sends with the same ones: the ``CredentialBacking`` of ``APNsCredentialsStore`` and
/// ``FCMCredentialsStore`` in a running tidingsd.
public struct StoreCredentialBacking: CredentialBacking {
    private let store: any Store
    private let clock: any TidingsClock

    public init(store: any Store, clock: any TidingsClock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    public func credential(_ provider: CredentialProvider, appID: String) throws -> StoredCredential? {
        guard let record = try store.pushCredential(appID: appID, provider: Self.provider(provider)) else {
            return nil
        }
        let settings = (try? JSONValue.parse(record.settings))?.objectValue?.compactMapValues(\.stringValue) ?? [:]
        // The time alone could repeat within a millisecond; the digest tells two such saves apart.
        let digest = SHA256Digest.hex(SHA256Digest.hash(record.secret + Array(record.settings.utf8)))
        return StoredCredential(
            provider: provider, appID: appID, secret: Data(record.secret), settings: settings,
            version: "\(record.updatedAt)-\(digest.prefix(16))")
    }

    public func saveCredential(_ credential: StoredCredential) throws {
        let settings = JSONValue.object(credential.settings.mapValues(JSONValue.string))
        try store.savePushCredential(
            PushCredentialRecord(
                appID: credential.appID, provider: Self.provider(credential.provider), secret: Array(credential.secret),
                settings: String(decoding: try settings.serialized(sortedKeys: true), as: UTF8.self),
                updatedAt: clock.now.millisecondsSince1970))
    }

    public func removeCredential(_ provider: CredentialProvider, appID: String) throws -> Bool {
        try store.removePushCredential(appID: appID, provider: Self.provider(provider))
    }

    private static func provider(_ provider: CredentialProvider) -> PushCredentialRecord.Provider {
        switch provider {
        case .apns: .apns
        case .fcm: .fcm
        }
    }
}
