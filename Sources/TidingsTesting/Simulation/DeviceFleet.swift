import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsModel
import TidingsServer

/// Many simulated devices in one process, each a real `TidingsClient` with its own container, fed by
/// the APNs emulator.
///
/// ```swift
/// let fleet = try DeviceFleet(configuration: .init(count: 100, serverURL: url, appKey: key, directory: dir))
/// try await fleet.registerAll()
/// fleet.start(feed: InProcessPushFeed(emulator: emulator, topic: "com.example.app"))
/// // ... send a message, wait ...
/// let tally = await fleet.stop()
/// ```
public final class DeviceFleet: Sendable {
    public struct Configuration: Sendable {
        public var count: Int
        /// The same seed gives the same tokens, consents and reactions.
        public var seed: UInt64 = 1
        public var serverURL: URL
        public var appKey: String
        /// Each device's container is a folder under it.
        public var directory: URL
        public var behaviour = DeviceBehaviour()
        public var environment = APNsEnvironment.production
        /// Devices working at once (opening SQLite stores, fetching media, uploading).
        public var concurrency = 16
        public var transport: any HTTPTransport = URLSessionTransport()
        /// Hosts the service extension may fetch media from over plain HTTP (a local media server).
        public var insecureMediaHosts: Set<String> = ["127.0.0.1", "localhost"]
        public var deepLinks = DeepLinkAllowList(schemes: ["tidingsdemo"])
        /// Device `n` logs in as this prefix followed by `n`.
        public var userIDPrefix = "user-"
        /// Fetches a user token for a user id from the app's backend, when the app verifies identities.
        public var userTokens: UserTokenProvider?
        /// The Live Activity attributes types the app offers push-to-start for; every device reports a
        /// push-to-start token for each when it registers.
        public var liveActivityTypes: [String] = []
        /// Where the devices' people live, drawn by weight per device from the seed; empty: the machine's own
        /// language and time zone on every device.
        public var regions = SimulatedRegion.mixed

        public init(count: Int, serverURL: URL, appKey: String, directory: URL) {
            self.count = count
            self.serverURL = serverURL
            self.appKey = appKey
            self.directory = directory
        }
    }

    /// What went wrong on one device, kept so a run can report it without stopping the others.
    public struct Failure: Sendable, Hashable {
        public var deviceIndex: Int
        public var message: String
    }

    struct State {
        var tally = FleetTally()
        var failures: [Failure] = []
        var tails: [Int: Task<Void, Never>] = [:]
        var poller: Task<Void, Never>?
        var feedError: DeviceFleetError?
    }

    public let configuration: Configuration
    public let devices: [SimulatedDevice]
    private let devicesByToken: [String: SimulatedDevice]
    private let liveActivityTokens = LiveActivityTokenDirectory()
    private let limiter: AsyncLimiter
    private let state = LockedBox(State())

    /// Lays out the devices; nothing is opened or sent yet.
    /// - Throws: ``DeviceFleetError/invalidBehaviour(_:)`` for a count below 1 or a probability outside 0...1.
    public init(configuration: Configuration) throws(DeviceFleetError) {
        guard configuration.count >= 1 else {
            throw .invalidBehaviour("a fleet needs at least one device; asked for \(configuration.count)")
        }
        try configuration.behaviour.validate()
        self.configuration = configuration
        devices = (0..<configuration.count).map { [liveActivityTokens] index in
            var client = TidingsClient.Configuration(
                appKey: configuration.appKey, serverURL: configuration.serverURL,
                containerDirectory: configuration.directory.appendingPathComponent("device-\(index)"))
            client.environment = configuration.environment == .sandbox ? .sandbox : .production
            client.transport = configuration.transport
            client.deepLinks = configuration.deepLinks
            client.mediaPolicy.insecureHTTPHosts = configuration.insecureMediaHosts
            client.deviceModel = "Simulated iPhone"
            client.osVersion = "18.0"
            client.appVersion = "1.0"
            var regionRandom = SeededRandomNumberGenerator(seed: configuration.seed, stream: UInt64(index) << 2 | 2)
            if let region = SimulatedRegion.draw(from: configuration.regions, using: &regionRandom) {
                client.deviceContextProvider = FixedDeviceContextProvider(
                    region.deviceContext(osVersion: "18.0", deviceModel: "Simulated iPhone", appVersion: "1.0"))
            }
            // Uploads happen when a device has handled its pushes, as an app does when it goes back to the
            // background, not on a timer.
            client.upload.flushThreshold = .max
            return SimulatedDevice(
                index: index, seed: configuration.seed, userID: "\(configuration.userIDPrefix)\(index)",
                configuration: client, behaviour: configuration.behaviour, userTokens: configuration.userTokens,
                liveActivityTypes: configuration.liveActivityTypes, liveActivityTokens: liveActivityTokens)
        }
        devicesByToken = Dictionary(devices.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        limiter = AsyncLimiter(limit: configuration.concurrency)
    }

    /// What the devices received and did so far.
    public var tally: FleetTally { state.withLock { $0.tally } }
    /// Devices that failed, with why.
    public var failures: [Failure] { state.withLock { $0.failures } }

    /// Registers every device with tidingsd, `concurrency` at a time.
    /// - Parameter progress: called with the number registered so far.
    /// - Throws: the first device's failure, after the others have finished.
    public func registerAll(progress: (@Sendable (Int) -> Void)? = nil) async throws(DeviceFleetError) {
        let failure = await withTaskGroup(of: DeviceFleetError?.self) { group -> DeviceFleetError? in
            for device in devices {
                group.addTask { [limiter, environment = configuration.environment] in
                    await limiter.run { () -> DeviceFleetError? in
                        do throws(DeviceFleetError) {
                            try await device.register(environment: environment)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
            }
            var first: DeviceFleetError?
            var done = 0
            for await result in group {
                done += 1
                progress?(done)
                first = first ?? result
            }
            return first
        }
        if let failure { throw failure }
    }

    /// Starts collecting pushes from `feed` and handing them to their devices.
    public func start(feed: some PushFeed) {
        let poller = Task { [self] in
            while !Task.isCancelled {
                let batch: [APNsEmulatorNotification]
                do throws(DeviceFleetError) {
                    batch = try await feed.next(wait: .seconds(1))
                } catch {
                    // Stopping cancels the long-poll in progress; that is not the feed failing.
                    if Task.isCancelled { break }
                    state.withLock { $0.feedError = error }
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                state.withLock { $0.feedError = nil }
                dispatch(batch)
            }
        }
        state.withLock { $0.poller = poller }
    }

    /// Stops collecting, waits for the devices to finish what they were given, and returns the tally.
    @discardableResult
    public func stop() async -> FleetTally {
        let poller = state.withLock { state -> Task<Void, Never>? in
            defer { state.poller = nil }
            return state.poller
        }
        poller?.cancel()
        await poller?.value
        await settle()
        return tally
    }

    /// Waits until every push handed out so far has been handled.
    public func settle() async {
        let tails = state.withLock { Array($0.tails.values) }
        for tail in tails { await tail.value }
    }

    /// Uploads what devices still hold (their first `token_register`, or an upload that failed).
    /// - Returns: the devices that still hold events afterwards.
    @discardableResult
    public func flushPending() async -> Int {
        await withTaskGroup(of: Bool.self) { group -> Int in
            for device in devices {
                group.addTask { [limiter] in
                    await limiter.run {
                        guard await device.hasPendingEvents else { return false }
                        _ = try? await device.flush()
                        return await device.hasPendingEvents
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// Device `index`'s app tracks one of its own events and uploads it, after what the device is handling now
    /// (a device handles one thing at a time, as one app does).
    /// - Throws: ``DeviceFleetError/deviceFailed(index:reason:)`` for an index outside the fleet, an event the SDK
    ///   refuses or an upload that fails.
    public func track(_ name: String, value: String? = nil, onDevice index: Int) async throws(DeviceFleetError) {
        guard devices.indices.contains(index) else {
            throw .deviceFailed(index: index, reason: "there is no such device; the fleet has \(devices.count)")
        }
        let device = devices[index]
        let tracked = state.withLock { state -> Task<DeviceFleetError?, Never> in
            let previous = state.tails[index]
            let tracked = Task { () -> DeviceFleetError? in
                await previous?.value
                do throws(DeviceFleetError) {
                    try await device.track(name, value: value)
                    return nil
                } catch {
                    return error
                }
            }
            state.tails[index] = Task { _ = await tracked.value }
            return tracked
        }
        if let error = await tracked.value { throw error }
    }

    /// Activity `id` as each device shows it, for the devices that have it.
    public func liveActivity(id: String) async -> [SimulatedLiveActivity] {
        var found: [SimulatedLiveActivity] = []
        for device in devices {
            if let activity = await device.liveActivities[id] { found.append(activity) }
        }
        return found
    }

    /// The last error reading the feed, if it is failing.
    public var feedError: DeviceFleetError? { state.withLock { $0.feedError } }

    private func dispatch(_ batch: [APNsEmulatorNotification]) {
        var perDevice: [String: [APNsEmulatorNotification]] = [:]
        for notification in batch { perDevice[notification.deviceToken.lowercased(), default: []].append(notification) }
        for (token, notifications) in perDevice {
            guard let device = devicesByToken[token] ?? liveActivityTokens.device(for: token).map({ devices[$0] })
            else { continue }
            state.withLock { state in
                let previous = state.tails[device.index]
                // One handling at a time per device, in arrival order; at most `concurrency` devices at once.
                state.tails[device.index] = Task { [self, limiter] in
                    await previous?.value
                    let outcome = await limiter.run { () -> Result<FleetTally, DeviceFleetError> in
                        do throws(DeviceFleetError) {
                            return .success(try await device.handle(notifications))
                        } catch {
                            return .failure(error)
                        }
                    }
                    record(outcome, device: device.index)
                }
            }
        }
    }

    private func record(_ outcome: Result<FleetTally, DeviceFleetError>, device index: Int) {
        state.withLock { state in
            switch outcome {
            case .success(let tally): state.tally.add(tally)
            case .failure(let error): state.failures.append(Failure(deviceIndex: index, message: error.description))
            }
        }
    }
}
