import Foundation
import TidingsMetrics

/// The API's counters in the server's Prometheus registry, plus the store's size on disk.
public struct RegistryAPIMetrics: APIMetrics {
    private let eventsAccepted: Counter
    private let eventsDuplicate: Counter
    private let eventsRejected: Counter
    private let installationsCreated: Counter
    private let installationsUpdated: Counter
    private let unauthorized: Counter
    private let forbidden: Counter
    private let limited: Counter

    /// Registers the API's series in `registry`; `storeFiles` are summed for `tidings_store_bytes`.
    public init(registry: MetricsRegistry, storeFiles: [URL] = []) {
        func events(_ status: String) -> Counter {
            registry.counter(
                name: "tidings_events_ingested_total", help: "Events answered by POST /v1/events, by receipt status.",
                labels: ["status": status])
        }
        eventsAccepted = events("accepted")
        eventsDuplicate = events("duplicate")
        eventsRejected = events("rejected")
        func installations(_ change: String) -> Counter {
            registry.counter(
                name: "tidings_installations_upserted_total", help: "Installations created or changed.",
                labels: ["change": change])
        }
        installationsCreated = installations("created")
        installationsUpdated = installations("updated")
        func refused(_ status: String) -> Counter {
            registry.counter(
                name: "tidings_auth_failures_total", help: "Requests refused for their key, by HTTP status.",
                labels: ["status": status])
        }
        unauthorized = refused("401")
        forbidden = refused("403")
        limited = registry.counter(
            name: "tidings_rate_limited_total", help: "Requests refused 429 for their key's rate or failed sign-ins.")
        if !storeFiles.isEmpty {
            let paths = storeFiles.map(\.path)
            registry.gauge(name: "tidings_store_bytes", help: "Size of the store's files on disk.") {
                paths.reduce(0) { total, path in
                    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?
                        .doubleValue
                    return total + (size ?? 0)
                }
            }
        }
    }

    public func eventsIngested(accepted: Int, duplicate: Int, rejected: Int) {
        if accepted > 0 { eventsAccepted.increment(by: accepted) }
        if duplicate > 0 { eventsDuplicate.increment(by: duplicate) }
        if rejected > 0 { eventsRejected.increment(by: rejected) }
    }

    public func installationUpserted(created: Bool) {
        (created ? installationsCreated : installationsUpdated).increment(by: 1)
    }

    public func authenticationFailed(status: Int) {
        (status == 403 ? forbidden : unauthorized).increment(by: 1)
    }

    public func rateLimited() { limited.increment(by: 1) }
}
