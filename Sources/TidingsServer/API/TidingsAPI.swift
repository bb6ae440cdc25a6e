import Foundation
import TidingsModel

/// The Tidings HTTP API over a store: the route table of every `/v1` endpoint.
///
/// Stub of the skeleton; the API helper replaces it. The server runs `router.handler`.
public final class TidingsAPI: Sendable {
    public let router: Router

    /// Opens (creating if needed) the store in `dataDirectory`.
    public init(dataDirectory: URL, logger: Logger) throws {
        router = Router()
    }
}
