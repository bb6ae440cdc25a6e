import Foundation
import TidingsModel

/// The HTTP/2 connections of one ``APNsClient`` to one APNs host, opened and closed with the load.
///
/// Each connection is its own ``CurlMultiClient`` (its own loop thread) with its own window of
/// ``Settings/streamsPerConnection`` streams, or fewer when its host grants fewer
/// (``CurlMultiClient/streamWindow``); what does not fit waits in that client's queue. The rule:
/// - a request goes to the oldest connection with a stream free;
/// - when every open connection has all its streams busy (the request would wait) and fewer than
///   ``Settings/maximum`` are open, another connection is opened and takes it; at the maximum, the connection
///   with the fewest requests in flight queues it;
/// - a connection beyond ``Settings/minimum`` that has had nothing in flight for ``Settings/idleTimeout`` is
///   closed.
///
/// The connections share nothing but the caller's authorization, so one provider token (JWT) serves them all.
/// A connection that breaks fails only its own requests in flight (the caller retries them); libcurl reconnects
/// it for the next request.
final class APNsConnectionPool: Sendable {
    struct Settings: Sendable, Hashable {
        /// Connections kept open once opened.
        var minimum = 1
        /// Connections open at most.
        var maximum = 1
        /// Requests one connection carries at once; more make the connection "full".
        var streamsPerConnection = 1000
        /// How long a connection beyond the minimum may sit without a request before it is closed.
        var idleTimeout: Duration = .seconds(60)
        /// Each connection's client.
        var http = CurlMultiClient.Configuration()
    }

    private struct Lane {
        let client: CurlMultiClient
        var inFlight = 0
        var idleSince = ContinuousClock.now
    }

    private struct State {
        var lanes: [Lane] = []
        var closed = false
        var sweeping = false
        /// Connections opened over the pool's life, for tests and the benchmark.
        var opened = 0
    }

    let settings: Settings
    private let state = LockedBox(State())
    /// Called, outside the lock, each time a connection is opened.
    private let connectionOpened: (@Sendable () -> Void)?

    init(settings: Settings, connectionOpened: (@Sendable () -> Void)? = nil) {
        var settings = settings
        settings.minimum = max(1, settings.minimum)
        settings.maximum = max(settings.minimum, settings.maximum)
        settings.streamsPerConnection = max(1, settings.streamsPerConnection)
        self.settings = settings
        self.connectionOpened = connectionOpened
    }

    /// Connections open now.
    var openConnections: Int { state.withLock { $0.lanes.count } }

    /// The open connections, their pushes in flight and the streams they are granted, read together.
    var load: APNsConnectionLoad {
        state.withLock { state in
            APNsConnectionLoad(
                connections: state.lanes.count, pushesInFlight: state.lanes.reduce(0) { $0 + $1.inFlight },
                streams: state.lanes.reduce(0) { $0 + min(settings.streamsPerConnection, $1.client.streamWindow) })
        }
    }

    /// The requests in flight on each open connection, oldest connection first.
    var inFlightPerConnection: [Int] { state.withLock { $0.lanes.map(\.inFlight) } }

    /// The stream window each open connection learned from its host, oldest connection first.
    var streamWindowPerConnection: [Int] { state.withLock { $0.lanes.map(\.client.streamWindow) } }

    /// Connections opened since the pool was made (closed ones included).
    var connectionsOpened: Int { state.withLock { $0.opened } }

    /// Sends `request` on the oldest connection with a stream free, opening one when every open one is full.
    func send(_ request: HTTP2Request) async throws(HTTP2ClientError) -> HTTP2Response {
        let (client, startSweeper, idle, opened) = try pick()
        if opened { connectionOpened?() }
        for spare in idle { spare.shutdown() }
        if startSweeper { sweepWhileAboveMinimum() }
        defer { release(client) }
        return try await client.send(request)
    }

    /// Closes every connection: requests in flight fail with `shutdown`, later ones at once.
    func shutdown() {
        let lanes = state.withLock { state in
            state.closed = true
            defer { state.lanes = [] }
            return state.lanes
        }
        for lane in lanes { lane.client.shutdown() }
    }

    private static let shutdownError = HTTP2ClientError(code: .shutdown, message: "the HTTP/2 client was shut down")

    /// The connection for the next request (counted in flight), whether a sweeper must start, idle
    /// connections to close, and whether the connection was opened for this request.
    private func pick() throws(HTTP2ClientError) -> (CurlMultiClient, Bool, [CurlMultiClient], Bool) {
        let now = ContinuousClock.now
        let picked = state.withLock {
            state -> Result<(CurlMultiClient, Bool, [CurlMultiClient], Bool), HTTP2ClientError> in
            if state.closed { return .failure(Self.shutdownError) }
            let idle = removeIdle(&state, now: now)
            // The oldest connection with a stream free, so that connections beyond the need go idle and close.
            // A connection is full at the window its host grants, when that is below the configured one.
            var index = state.lanes.firstIndex {
                $0.inFlight < min(settings.streamsPerConnection, $0.client.streamWindow)
            }
            var opened = false
            if index == nil, state.lanes.count < settings.maximum {
                do throws(HTTP2ClientError) {
                    state.lanes.append(Lane(client: try CurlMultiClient(configuration: settings.http)))
                    state.opened += 1
                    opened = true
                    index = state.lanes.count - 1
                } catch {
                    if state.lanes.isEmpty { return .failure(error) }
                }
            }
            // Every connection full and no more allowed: the one with the shortest queue.
            if index == nil {
                index = state.lanes.indices.min { state.lanes[$0].inFlight < state.lanes[$1].inFlight }
            }
            guard let index else { return .failure(Self.shutdownError) }
            state.lanes[index].inFlight += 1
            let startSweeper = state.lanes.count > settings.minimum && !state.sweeping
            if startSweeper { state.sweeping = true }
            return .success((state.lanes[index].client, startSweeper, idle, opened))
        }
        return try picked.get()
    }

    private func release(_ client: CurlMultiClient) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard let index = state.lanes.firstIndex(where: { $0.client === client }) else { return }
            state.lanes[index].inFlight -= 1
            if state.lanes[index].inFlight == 0 { state.lanes[index].idleSince = now }
        }
    }

    /// Takes out the connections beyond the minimum idle for the timeout, newest first; the caller closes them
    /// outside the lock (closing waits for the connection's thread).
    private func removeIdle(_ state: inout State, now: ContinuousClock.Instant) -> [CurlMultiClient] {
        var removed: [CurlMultiClient] = []
        var index = state.lanes.count - 1
        while index >= 0, state.lanes.count > settings.minimum {
            let lane = state.lanes[index]
            if lane.inFlight == 0, now - lane.idleSince >= settings.idleTimeout {
                removed.append(lane.client)
                state.lanes.remove(at: index)
            }
            index -= 1
        }
        return removed
    }

    /// While more than the minimum are open, looks for idle connections every half timeout, so a pool that
    /// sends nothing more still shrinks.
    private func sweepWhileAboveMinimum() {
        let interval = settings.idleTimeout / 2
        Task { [self] in
            while true {
                try? await Task.sleep(for: interval)
                let (idle, done) = state.withLock { state -> ([CurlMultiClient], Bool) in
                    let idle = state.closed ? [] : removeIdle(&state, now: .now)
                    let done = state.closed || state.lanes.count <= settings.minimum
                    if done { state.sweeping = false }
                    return (idle, done)
                }
                for client in idle { client.shutdown() }
                if done { return }
            }
        }
    }
}
