import Foundation
import TidingsModel
import TidingsStore

/// Builds the destination a forwarder's settings describe.
public struct DestinationFactory: Sendable {
    /// Where file destinations' directories are, each a relative path under it.
    public var fileRoot: URL
    public var httpClient: any ForwardingHTTPClient
    public var requestTimeout: Duration
    public var clock: any TidingsClock

    public init(
        fileRoot: URL, httpClient: any ForwardingHTTPClient, requestTimeout: Duration = .seconds(30),
        clock: any TidingsClock = SystemClock()
    ) {
        self.fileRoot = fileRoot
        self.httpClient = httpClient
        self.requestTimeout = requestTimeout
        self.clock = clock
    }

    /// The destination of `forwarder`. - Throws: ``ForwarderConfigurationError`` for settings that were
    /// stored by hand and do not hold.
    public func destination(for forwarder: ForwarderRecord, batchSize: Int) throws(ForwarderConfigurationError)
        -> any ForwardingDestination
    {
        let settings = forwarder.settings
        func string(_ key: String) throws(ForwarderConfigurationError) -> String {
            guard let value = settings[key]?.stringValue else {
                throw ForwarderConfigurationError("forwarder \(forwarder.id) has no \(key)")
            }
            return value
        }
        switch forwarder.kind {
        case .treasureData:
            let endpoint =
                if let region = settings["region"]?.stringValue.flatMap(TreasureDataDestination.Region.init) {
                    region.endpoint
                } else {
                    try string("endpoint")
                }
            return TreasureDataDestination(
                endpoint: endpoint, database: try string("database"), table: try string("table"),
                writeKey: try string("write_key"), client: httpClient, timeout: requestTimeout)
        case .webhook:
            return WebhookDestination(
                url: try string("url"), secret: try string("secret"), client: httpClient, timeout: requestTimeout,
                maximumBatchSize: batchSize, clock: clock)
        case .file:
            return NDJSONFileDestination(
                directory: fileRoot.appendingPathComponent(try string("directory"), isDirectory: true),
                forwarderID: forwarder.id, maximumBytes: Int(settings["max_file_bytes"]?.integerValue ?? 64 << 20),
                maximumAge: .seconds(settings["max_file_seconds"]?.integerValue ?? 3600), maximumBatchSize: batchSize,
                clock: clock)
        }
    }
}
