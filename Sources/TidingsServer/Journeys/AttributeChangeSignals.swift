import TidingsModel
import TidingsStore

/// The attribute changes of one installation upsert that journeys are triggered by, noted inside the store's
/// `prepare` (which sees the installation as it was) and queued once the upsert has committed.
///
/// A grouped write may run `prepare` twice; each run replaces what the previous one noted.
final class AttributeChangeSignals: Sendable {
    private let noted = LockedBox<[JourneySignal]>([])
    let appID: String
    let keys: Set<String>

    init(appID: String, keys: Set<String>) {
        self.appID = appID
        self.keys = keys
    }

    /// Notes the keys among ``keys`` whose value `update` changes.
    func note(_ update: InstallationUpdate, existing: Installation?, installationID: String, now: Int64) {
        guard !keys.isEmpty else { return }
        var signals: [JourneySignal] = []
        for key in keys.sorted() {
            guard let change = update.attributes[key] else { continue }
            let before = existing?.attributes[key]
            guard change != before else { continue }
            signals.append(
                JourneySignal(
                    appID: appID, kind: .attribute, name: key, installationID: installationID,
                    userID: update.userID.applied(to: existing?.userID) ?? nil,
                    value: JSONText.string(change?.json ?? .null), attributes: nil, occurredAt: now))
        }
        noted.withLock { $0 = signals }
    }

    /// Queues what was noted.
    func queue(in store: any Store) throws {
        let signals = noted.withLock { $0 }
        try store.addJourneySignals(signals)
    }
}
