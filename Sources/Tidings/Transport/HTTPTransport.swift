/// The HTTP seam of the SDK: one request in, one response out.
///
/// The uploader and the registration client talk to `tidingsd` only through this protocol, so tests
/// answer from a script (`ScriptedTransport` in TidingsTesting) and apps may plug in their own stack.
/// Any HTTP status is a response, not an error; errors are reserved for requests that got no answer.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    /// - Throws: ``TransportError`` when no response arrived (timeout, connection failure, cancellation).
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse
}
