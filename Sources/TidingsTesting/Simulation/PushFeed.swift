import TidingsAPNsEmulator
import TidingsServer

/// Where simulated devices get the pushes that reached Apple's stand-in, the APNs emulator.
public protocol PushFeed: Sendable {
    /// Removes and returns what arrived for the fleet's app, waiting up to `wait` when nothing has.
    /// - Throws: ``DeviceFleetError/feedFailed(_:)`` when the emulator cannot be reached.
    func next(wait: Duration) async throws(DeviceFleetError) -> [APNsEmulatorNotification]
}

/// The emulator in this process.
public struct InProcessPushFeed: PushFeed {
    public let emulator: APNsEmulator
    public let topic: String

    public init(emulator: APNsEmulator, topic: String) {
        self.emulator = emulator
        self.topic = topic
    }

    public func next(wait: Duration) async throws(DeviceFleetError) -> [APNsEmulatorNotification] {
        await emulator.collect(topic: topic, wait: wait)
    }
}
