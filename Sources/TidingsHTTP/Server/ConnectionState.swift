import CMicroHTTPD
import Foundation
import TidingsModel

/// What the server knows about the request on one connection, from its headers to its completion.
///
/// MHD calls back for one connection on one thread at a time; `response` and `abandoned` are also set
/// from a task or from shutdown, so they are read and written under `lock`.
final class ConnectionState: @unchecked Sendable {
    // @unchecked: the plain fields are touched only by the connection's MHD callbacks (serialised by
    // MHD); `response`/`abandoned`/`connection` go through `lock`.

    enum Phase {
        /// Reading the body.
        case receiving
        /// The body exceeded the limit: the rest is discarded and 413 is answered.
        case rejected(HTTPError)
        /// The handler runs in a task while the connection is suspended.
        case handling
        /// The response is queued.
        case responded
    }

    var phase = Phase.receiving
    /// The request's header lines, read once when its head is checked.
    var headers: [(name: String, value: String)] = []
    var body = Data()
    /// Bytes of an oversize body discarded so far; past a bound the connection is closed instead.
    var discarded = 0

    private let lock = NSLock()
    private var storedConnection: OpaquePointer?
    private var storedResponse: HTTPResponse?
    private var storedAbandoned = false

    init(connection: OpaquePointer) {
        storedConnection = connection
    }

    var connection: OpaquePointer? {
        get { lock.withLock { storedConnection } }
        set { lock.withLock { storedConnection = newValue } }
    }

    /// Set by the handler's task before it resumes the connection.
    var response: HTTPResponse? {
        get { lock.withLock { storedResponse } }
        set { lock.withLock { storedResponse = newValue } }
    }

    /// Set by shutdown: the connection is resumed only to be closed.
    var abandoned: Bool {
        get { lock.withLock { storedAbandoned } }
        set { lock.withLock { storedAbandoned = newValue } }
    }
}
