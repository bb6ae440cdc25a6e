import TidingsCrypto
import TidingsStore

extension APIService {
    /// Drops what the caches hold of each change the store announces: this instance's writes at once, other
    /// instances' as soon as the store hears them (PostgreSQL: LISTEN/NOTIFY, typically milliseconds), and
    /// everything when the store may have missed some.
    static func observeChanges(
        of store: any Store, keys: StoreBackedCache<[UInt8], APIKeyRecord>, apps: StoreBackedCache<String, AppRecord>,
        identities: StoreBackedCache<String, JWTVerifier>, erasureKeys: StoreBackedCache<String, ErasureKeyEntry>,
        tombstones: StoreBackedCache<ErasureTombstoneKey, ErasureTombstoneEntry>
    ) -> StoreChangeObservation {
        store.changes.observe { change in
            switch change {
            case .key(let id): keys.removeAll { $0.id == id }
            case .app(let id): apps.remove(id)
            case .identityKeys(let appID): identities.remove(appID)
            case .pushCredentials, .messageCancelled: break
            case .erasures(let appID):
                erasureKeys.remove(appID)
                tombstones.removeAll { $0.appID == appID }
            case .everything:
                keys.removeAll()
                apps.removeAll()
                identities.removeAll()
                erasureKeys.removeAll()
                tombstones.removeAll()
            }
        }
    }
}
