import Foundation
import Testing
import TidingsModel

@testable import TidingsCrypto
@testable import TidingsPush

/// Several connections per APNs host, opened while the open ones are full and closed when idle, against the
/// HTTP/2 stand-in over TLS. `slow…` pushes hold their stream for 5 s, so a window fills on demand; `hold…`
/// pushes for 45 s, for a stream that must still be open when its connection is cut.
@Suite("APNsClient: connections with the load", .serialized, .timeLimit(.minutes(1)))
struct APNsConnectionPoolTests {
    /// Counts the distinct headers a provider token hands out: one means one signature for every connection.
    final class RecordingAuthorization: APNsAuthorization {
        let wrapped: APNsProviderToken
        private let headers = LockedBox<Set<String>>([])

        init(_ wrapped: APNsProviderToken) { self.wrapped = wrapped }

        var distinctHeaders: Set<String> { headers.withLock { $0 } }

        func authorizationHeader(now: Date) throws -> String {
            let header = try wrapped.authorizationHeader(now: now)
            _ = headers.withLock { $0.insert(header) }
            return header
        }

        func invalidate(_ header: String) { wrapped.invalidate(header) }
    }

    static func client(
        _ server: APNsStandIn, streams: Int, maximum: Int, idleTimeout: Duration = .seconds(30),
        authorization: (any APNsAuthorization)? = CountingAuthorization(),
        connectionOpened: (@Sendable (OutgoingPush.Environment) -> Void)? = nil
    ) throws -> APNsClient {
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = server.endpoint
        configuration.sandboxEndpoint = server.endpoint
        configuration.caBundlePath = APNsStandIn.certificatePath
        configuration.maxConcurrentStreams = streams
        configuration.maximumConnectionsPerHost = maximum
        configuration.idleConnectionTimeout = idleTimeout
        return try APNsClient(
            configuration: configuration, authorization: authorization, connectionOpened: connectionOpened)
    }

    static func push(_ token: String) -> OutgoingPush {
        OutgoingPush(token: token, environment: .production, topic: "com.example.app", payload: Array("{}".utf8))
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    @Test("a full connection opens another, up to the maximum; the excess queues; idle ones close")
    func growsUnderLoadAndShrinksWhenIdle() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server, streams: 2, maximum: 3, idleTimeout: .milliseconds(300))
        defer { apns.shutdown() }
        let pool = try #require(apns.pools[.production])
        #expect(pool.openConnections == 0)

        // One push at a time needs one connection, however many are sent one after another.
        for index in 0..<5 {
            #expect(await apns.send(Self.push(String(format: "%064x", index))).disposition == .sent)
        }
        #expect(pool.openConnections == 1)

        // Seven slow pushes: two streams on each of three connections, the seventh waits on the emptiest.
        let slow = Task {
            await withTaskGroup(of: PushOutcome.Disposition.self) { group in
                for index in 0..<7 { group.addTask { await apns.send(Self.push("slow\(index)")).disposition } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await Self.eventually { pool.inFlightPerConnection.reduce(0, +) == 7 })
        #expect(pool.openConnections == 3)
        #expect(pool.inFlightPerConnection.sorted() == [2, 2, 3])
        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        // The three, and the probe's own.
        #expect(try await Self.eventually { try await server.stats(using: probe).open == 4 })

        let outcomes = await slow.value
        #expect(outcomes.count == 7)
        #expect(outcomes.allSatisfy { $0 == .sent })
        // Idle past the timeout: back to the one that is always kept, with no push to trigger it.
        #expect(await Self.eventually { pool.openConnections == 1 })
        #expect(try await Self.eventually { try await server.stats(using: probe).open == 2 })
        #expect(pool.connectionsOpened == 3)
        // And the one left still sends.
        #expect(await apns.send(Self.push("after")).disposition == .sent)
    }

    @Test("the load of each host: connections, pushes on them, streams granted, and a report per connection opened")
    func loadIsReportedPerEnvironment() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let opened = LockedBox<[OutgoingPush.Environment]>([])
        let apns = try Self.client(
            server, streams: 2, maximum: 3,
            connectionOpened: { environment in opened.withLock { $0.append(environment) } })
        defer { apns.shutdown() }
        #expect(apns.connectionLoad(.production) == APNsConnectionLoad())

        // Seven slow pushes on three connections of two streams: one waits in a connection's queue.
        let slow = Task {
            await withTaskGroup(of: PushOutcome.Disposition.self) { group in
                for index in 0..<7 { group.addTask { await apns.send(Self.push("slow\(index)")).disposition } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await Self.eventually { apns.connectionLoad(.production).pushesInFlight == 7 })
        #expect(apns.connectionLoad(.production) == APNsConnectionLoad(connections: 3, pushesInFlight: 7, streams: 6))
        #expect(apns.connectionLoad(.sandbox) == APNsConnectionLoad())
        #expect(opened.withLock { $0 } == [.production, .production, .production])

        #expect(await slow.value.allSatisfy { $0 == .sent })
        #expect(apns.connectionLoad(.production) == APNsConnectionLoad(connections: 3, pushesInFlight: 0, streams: 6))

        // The other host has its own connections, and its own report.
        var sandboxPush = Self.push("sandbox0")
        sandboxPush.environment = .sandbox
        #expect(await apns.send(sandboxPush).disposition == .sent)
        #expect(apns.connectionLoad(.sandbox).connections == 1)
        #expect(opened.withLock { $0 } == [.production, .production, .production, .sandbox])
    }

    @Test("every connection sends with the one provider token: signed once, renewed once after a rejection")
    func oneSignedTokenForEveryConnection() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let token = try APNsProviderToken(
            key: ES256Key.generate(), configuration: .init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ"))
        let authorization = RecordingAuthorization(token)
        let apns = try Self.client(server, streams: 2, maximum: 4, authorization: authorization)
        defer { apns.shutdown() }
        let pool = try #require(apns.pools[.production])

        let tokens = (0..<8).map { "slow\($0)" }
        let outcomes = await withTaskGroup(of: PushOutcome.Disposition.self) { group in
            for deviceToken in tokens { group.addTask { await apns.send(Self.push(deviceToken)).disposition } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == .sent })
        #expect(pool.connectionsOpened == 4)
        #expect(authorization.distinctHeaders.count == 1)
        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        var seen = Set<String>()
        for deviceToken in tokens {
            seen.insert(try await server.recorded(deviceToken, using: probe)["authorization"] ?? "none")
        }
        #expect(seen == authorization.distinctHeaders)

        // APNs rejects the token: it is signed again once, and every connection takes the new one.
        #expect(await apns.send(Self.push("expired0")).disposition == .sent)
        #expect(authorization.distinctHeaders.count == 2)
        let later = (0..<4).map { "slowlater\($0)" }
        let renewed = await withTaskGroup(of: PushOutcome.Disposition.self) { group in
            for deviceToken in later { group.addTask { await apns.send(Self.push(deviceToken)).disposition } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(renewed.allSatisfy { $0 == .sent })
        #expect(authorization.distinctHeaders.count == 2)
        let latest = try await server.recorded("expired0", using: probe)["authorization"]
        for deviceToken in later {
            #expect(try await server.recorded(deviceToken, using: probe)["authorization"] == latest)
        }
    }

    @Test("a connection learns the stream window its host grants; the pool opens another when it is full")
    func learnsTheHostsStreamWindow() async throws {
        let server = try APNsStandIn(maxConcurrentStreams: 3)
        defer { server.stop() }
        // Configured for 1,000 streams a connection, as against Apple; this host grants 3.
        let apns = try Self.client(server, streams: 1000, maximum: 2)
        defer { apns.shutdown() }
        let pool = try #require(apns.pools[.production])

        // One push first, so the connection is up and the host's SETTINGS are in (before them libcurl may open
        // streams the host then refuses and it retries, which shows no waiting).
        #expect(await apns.send(Self.push("warmup")).disposition == .sent)
        #expect(pool.streamWindowPerConnection == [1000])
        // Twenty at once on one connection: libcurl runs 3, the rest wait for streams until the first answers.
        let burst = await withTaskGroup(of: PushOutcome.Disposition.self) { group in
            for index in 0..<20 {
                group.addTask { await apns.send(Self.push(String(format: "%064x", index))).disposition }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(burst.count == 20 && burst.allSatisfy { $0 == .sent })
        // (On a loaded machine the last of the twenty may be submitted after the window was learned, and open
        // the second connection already.)
        #expect(pool.streamWindowPerConnection.first == 3, "learned from the host, not the 1,000 configured")

        // Full at 3, the connection makes the pool open the second for the next three.
        let slow = Task {
            await withTaskGroup(of: PushOutcome.Disposition.self) { group in
                for index in 0..<6 { group.addTask { await apns.send(Self.push("slow\(index)")).disposition } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await Self.eventually { pool.inFlightPerConnection.reduce(0, +) == 6 })
        #expect(pool.inFlightPerConnection == [3, 3])
        #expect(await slow.value.allSatisfy { $0 == .sent })
    }

    @Test("a host that raises its window after the first pushes, as APNs does, gets the larger window used")
    func followsAHostThatRaisesItsWindow() async throws {
        // Two streams a connection until 22 pushes have arrived, then 1,000.
        let server = try APNsStandIn(maxConcurrentStreams: 2, raiseAfter: 22)
        defer { server.stop() }
        let apns = try Self.client(server, streams: 1000, maximum: 1)
        defer { apns.shutdown() }
        let pool = try #require(apns.pools[.production])
        func burst(_ count: Int, _ prefix: String) async -> [PushOutcome.Disposition] {
            await withTaskGroup(of: PushOutcome.Disposition.self) { group in
                for index in 0..<count { group.addTask { await apns.send(Self.push("\(prefix)\(index)")).disposition } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await apns.send(Self.push("warmup")).disposition == .sent)
        #expect(await burst(20, "small").allSatisfy { $0 == .sent })
        #expect(pool.streamWindowPerConnection == [2], "learned while the host granted two")

        // The host has raised its window: a long burst doubles the connection's after each round with none
        // waiting inside libcurl, for as long as pushes queue behind it (how far depends on how fast the
        // burst's tasks submit theirs, so only the growth is asserted).
        #expect(await burst(1000, "large").allSatisfy { $0 == .sent })
        let window = try #require(pool.streamWindowPerConnection.first)
        #expect(window >= 16, "grew from 2 to \(window)")
    }

    @Test("a connection cut mid-flight fails only its own pushes, as retries; the others and later pushes are sent")
    func aBrokenConnectionLosesNoPush() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server, streams: 2, maximum: 2)
        defer { apns.shutdown() }
        let pool = try #require(apns.pools[.production])

        // Two slow pushes fill the first connection.
        let first = Task {
            await withTaskGroup(of: (String, PushOutcome).self) { group in
                for token in ["slowA0", "slowA1"] { group.addTask { (token, await apns.send(Self.push(token))) } }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        #expect(await Self.eventually { pool.inFlightPerConnection == [2] })
        // A held push (answered only after 45 s, so the cut always comes first however slow the machine)
        // opens the second; the push that cuts its connection follows it there.
        let victim = Task { await apns.send(Self.push("holdB0")) }
        #expect(await Self.eventually { pool.inFlightPerConnection == [2, 1] })
        let cutter = await apns.send(Self.push("dropB1"))
        let cut = await victim.value

        // Both pushes of the cut connection come back to be sent again, not as sent and not as lost.
        #expect(cutter.disposition.isRetry)
        #expect(cut.disposition.isRetry)
        // The first connection's pushes are untouched.
        let untouched = await first.value
        #expect(untouched.values.allSatisfy { $0.disposition == .sent })
        #expect(untouched.count == 2)
        // The retry goes out: a new connection replaces the cut one.
        #expect(await apns.send(Self.push("slowB0")).disposition == .sent)
        #expect(pool.openConnections == 2)
    }
}

extension PushOutcome.Disposition {
    fileprivate var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }
}
