import Foundation
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore

/// The whole send path against the raw APNs client, same sink, same run: N installations (default 50,000;
/// `TIDINGS_BENCH_SENDPATH_INSTALLATIONS` changes it) in a SQLite store on disk, one message to all of them,
/// sent by tidingsd's fan-out (claim, policy, build, route, send, record durably) through ``RoutingPushProvider``
/// and an ``APNsClient`` to the h2o sink of ``APNsBench``; and the same client alone sending N pushes with the
/// same window, in alternating rounds, so a machine busy with other work slows both alike. Reports pushes per
/// second (medians of three rounds) and the send path's share of the raw client's rate.
///
/// It also runs the send path with the settings it had before batching (64 in flight, chunks of 500, one
/// transaction per outcome) for comparison. With `TIDINGS_BENCH_SENDPATH_TEMPLATED=1` every installation also
/// gets custom attributes, and each round adds a message whose title and body are templates rendered per
/// installation (docs/campaigns.md, Personalisation), beside the same message without templates.
enum SendPathBench {
    static let bundleID = "com.example.bench"

    /// The templated message's payload, as `POST /v1/messages` stores it: the templates as written.
    static let templatedPayload = Array(
        #"{"aps":{"alert":{"title":"Hi {{attributes.first_name | default: \"there\"}}","body":"{{attributes.points | default: \"no\"}} points"},"badge":1}}"#
            .utf8)

    static func run() throws {
        let installations =
            Int(ProcessInfo.processInfo.environment["TIDINGS_BENCH_SENDPATH_INSTALLATIONS"] ?? "") ?? 50_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-sendpath-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try H2OSink(directory: directory)
        defer { sink.stop() }
        let clientConfiguration = sink.clientConfiguration
        let current = FanoutWorker.Configuration()
        let before = {
            var configuration = FanoutWorker.Configuration()
            configuration.maximumInFlight = 64
            configuration.chunkSize = 500
            configuration.completionBatchSize = 1
            return configuration
        }()

        print(
            "sendpath: \(installations) installations, sink h2o + mruby (TLS, 1 thread, 100 streams), "
                + "\(clientConfiguration.connectionsPerHost) connection(s)")
        let templated = ProcessInfo.processInfo.environment["TIDINGS_BENCH_SENDPATH_TEMPLATED"] == "1"
        let store = try SQLiteStore(directory: directory.appendingPathComponent("store"))
        try seed(store, installations: installations, attributes: templated)

        // Raw and send path alternate, three rounds, so drift in the machine's load touches both; the medians
        // are compared.
        var raw: [Double] = []
        var sendPath: [Double] = []
        var earlier: [Double] = []
        var personalised: [Double] = []
        for round in 0..<3 {
            raw.append(
                try APNsBench.blocking {
                    try await rawRate(clientConfiguration, pushes: installations, inFlight: current.maximumInFlight)
                })
            sendPath.append(
                try APNsBench.blocking {
                    try await sendPathRate(
                        store: store, directory: directory, clientConfiguration: clientConfiguration, fanout: current,
                        messageID: "bench-current-\(round)", installations: installations)
                })
            earlier.append(
                try APNsBench.blocking {
                    try await sendPathRate(
                        store: store, directory: directory, clientConfiguration: clientConfiguration, fanout: before,
                        messageID: "bench-before-\(round)", installations: installations)
                })
            if templated {
                personalised.append(
                    try APNsBench.blocking {
                        try await sendPathRate(
                            store: store, directory: directory, clientConfiguration: clientConfiguration,
                            fanout: current, messageID: "bench-templated-\(round)", installations: installations,
                            payload: templatedPayload)
                    })
            }
            print(
                "round \(round + 1): raw \(Int(raw[round]))/s, send path \(Int(sendPath[round]))/s, "
                    + "earlier settings \(Int(earlier[round]))/s"
                    + (templated ? ", templated \(Int(personalised[round]))/s" : ""))
        }
        Measure.report("APNsClient alone, \(current.maximumInFlight) in flight (median)", Measure.median(raw), "/s")
        Measure.report(
            "send path (fan-out + routing + APNsClient + SQLite), \(current.maximumInFlight) in flight, "
                + "batches of \(current.completionBatchSize) (median)", Measure.median(sendPath), "/s")
        Measure.report("send path / raw client", Measure.median(sendPath) / Measure.median(raw) * 100, "%")
        Measure.report(
            "send path with the earlier settings (64 in flight, chunks of 500, one transaction per outcome, median)",
            Measure.median(earlier), "/s")
        Measure.report("earlier settings / raw client", Measure.median(earlier) / Measure.median(raw) * 100, "%")
        if templated {
            Measure.report(
                "send path, templated title and body rendered per installation (median)", Measure.median(personalised),
                "/s")
            Measure.report(
                "templated / untemplated send path", Measure.median(personalised) / Measure.median(sendPath) * 100, "%")
        }
    }

    /// One app with `installations` installations, each with its own token.
    static func seed(_ store: SQLiteStore, installations: Int, attributes: Bool = false) throws {
        let now = Date().millisecondsSince1970
        try store.createApp(AppRecord(id: "app_bench", name: "bench", bundleID: bundleID, createdAt: now))
        for index in 0..<installations {
            var update = InstallationUpdate()
            update.platform = .set("ios")
            update.apnsToken = .set(String(format: "%064x", index))
            update.environment = .set("production")
            if attributes {
                // Most installations have the attributes; every tenth renders the defaults.
                if index % 10 != 0 { update.attributes = ["first_name": .string("Person \(index)")] }
                update.attributes["points"] = .number(Double(index % 1000))
                update.attributes["vip"] = .bool(index % 7 == 0)
            }
            _ = try store.upsertInstallation(
                appID: "app_bench", installationID: String(format: "inst-%07d", index), update: update, now: now)
        }
    }

    /// The client alone: `pushes` pushes with `inFlight` outstanding; pushes per second.
    static func rawRate(_ configuration: APNsClient.Configuration, pushes: Int, inFlight: Int) async throws -> Double {
        let client = try APNsClient(configuration: configuration, authorization: APNsBench.StaticAuthorization())
        defer { client.shutdown() }
        func push(_ index: Int) -> OutgoingPush {
            OutgoingPush(
                token: String(format: "%064x", index), environment: .production, topic: bundleID,
                payload: APNsBench.payload)
        }
        for index in 0..<3 {
            guard await client.send(push(index)).disposition == .sent else {
                throw APNsBench.Failure(description: "warm-up push failed")
            }
        }
        let start = ContinuousClock.now
        let sent = await withTaskGroup(of: Bool.self) { group in
            var submitted = 0
            var sent = 0
            while submitted < min(inFlight, pushes) {
                let next = push(submitted)
                group.addTask { await client.send(next).disposition == .sent }
                submitted += 1
            }
            for await ok in group {
                if ok { sent += 1 }
                if submitted < pushes {
                    let next = push(submitted)
                    group.addTask { await client.send(next).disposition == .sent }
                    submitted += 1
                }
            }
            return sent
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard sent == pushes else { throw APNsBench.Failure(description: "only \(sent) of \(pushes) were sent") }
        return Double(pushes) / seconds
    }

    /// One message to every installation, sent by a ``FanoutService`` as tidingsd runs it; pushes per second
    /// from the start of the workers to every delivery recorded as sent.
    static func sendPathRate(
        store: SQLiteStore, directory: URL, clientConfiguration: APNsClient.Configuration,
        fanout: FanoutWorker.Configuration, messageID: String, installations: Int,
        payload: [UInt8] = APNsBench.payload
    ) async throws -> Double {
        let client = try APNsClient(configuration: clientConfiguration, authorization: APNsBench.StaticAuthorization())
        defer { client.shutdown() }
        var routing = RoutingPushProvider.Configuration()
        routing.allowsUnsignedAPNs = true
        let provider = RoutingPushProvider(
            store: store, apns: client, apnsCredentials: APNsCredentialsStore(dataDirectory: directory),
            fcm: AppFCMProvider(credentials: FCMCredentialsStore(dataDirectory: directory), logger: .disabled()),
            configuration: routing)
        // Warm the connection as the raw run does.
        for index in 0..<3 {
            let push = OutgoingPush(
                token: String(format: "%064x", index), environment: .production, topic: bundleID,
                payload: APNsBench.payload)
            guard await client.send(push).disposition == .sent else {
                throw APNsBench.Failure(description: "warm-up push failed")
            }
        }
        let now = Date().millisecondsSince1970
        let deliveries = (0..<installations).map { index in
            MessageDelivery(
                messageID: messageID, appID: "app_bench", installationID: String(format: "inst-%07d", index),
                token: String(format: "%064x", index))
        }
        try store.createMessage(
            MessageRecord(
                id: messageID, appID: "app_bench", kind: .alert, topic: bundleID, payload: payload,
                priority: 10, expiresAt: now + 3_600_000, createdAt: now),
            deliveries: deliveries)
        let service = FanoutService(store: store, provider: provider, configuration: fanout)
        let start = ContinuousClock.now
        service.start()
        // The message becomes done when nothing is pending or claimed: every outcome is recorded.
        while try store.message(appID: "app_bench", messageID: messageID)?.state != .done {
            if ContinuousClock.now - start > .seconds(600) { throw APNsBench.Failure(description: "timed out") }
            try await Task.sleep(for: .milliseconds(5))
        }
        let seconds = (ContinuousClock.now - start).seconds
        await service.stop()
        let counts = try store.messageCounts(messageID: messageID)
        guard counts.sent == installations else {
            throw APNsBench.Failure(description: "only \(counts.sent) of \(installations) were sent: \(counts)")
        }
        return Double(installations) / seconds
    }
}
