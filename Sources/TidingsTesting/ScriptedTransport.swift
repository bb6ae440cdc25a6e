import Foundation
import Tidings

/// An ``HTTPTransport`` that answers from a script, one step per request, and records every request.
///
/// ```swift
/// let transport = ScriptedTransport([
///     .fail(.timeout()),
///     .respond(status: 503, headers: ["Retry-After": "10"]),
///     .handle { request in server.handle(request) },
/// ])
/// ```
/// When the script runs out, ``whenExhausted`` answers (a connection failure unless set).
public final class ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    public enum Step: Sendable {
        /// Answer with this status, headers and body.
        case respond(status: Int, headers: [String: String] = [:], body: [UInt8] = [])
        /// Throw this error, as if no response arrived.
        case fail(TransportError)
        /// Compute the answer from the request (for example with an ``EventIngestStub``).
        case handle(@Sendable (TransportRequest) async throws(TransportError) -> TransportResponse)

        /// Answer `status` with a UTF-8 text body.
        public static func respond(status: Int, headers: [String: String] = [:], text: String) -> Step {
            .respond(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    private struct State {
        var script: [Step]
        var requests: [TransportRequest] = []
        var inFlight = 0
        var maximumInFlight = 0
        var whenExhausted: Step
    }

    private let state: LockedBox<State>

    public init(_ script: [Step] = [], whenExhausted: Step = .fail(.connectionFailed("the script is exhausted"))) {
        state = LockedBox(State(script: script, whenExhausted: whenExhausted))
    }

    /// Appends steps to the script.
    public func enqueue(_ steps: Step...) {
        state.withLock { $0.script.append(contentsOf: steps) }
    }

    /// Sets the answer used once the script is exhausted.
    public func setWhenExhausted(_ step: Step) {
        state.withLock { $0.whenExhausted = step }
    }

    /// Every request received, in order.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }
    /// How many requests were received.
    public var requestCount: Int { state.withLock { $0.requests.count } }
    /// Scripted steps not used yet.
    public var remainingSteps: Int { state.withLock { $0.script.count } }
    /// The most requests that were ever in progress at the same time.
    public var maximumConcurrentRequests: Int { state.withLock { $0.maximumInFlight } }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let step = state.withLock { state -> Step in
            state.requests.append(request)
            state.inFlight += 1
            state.maximumInFlight = max(state.maximumInFlight, state.inFlight)
            return state.script.isEmpty ? state.whenExhausted : state.script.removeFirst()
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        switch step {
        case .respond(let status, let headers, let body):
            return TransportResponse(status: status, headers: headers, body: body)
        case .fail(let error):
            throw error
        case .handle(let handler):
            return try await handler(request)
        }
    }
}
