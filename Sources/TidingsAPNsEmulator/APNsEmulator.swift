import Foundation
import TidingsHTTP
import TidingsModel

/// A local stand-in for Apple's push provider API, for tests and development without Apple.
///
/// ```swift
/// let emulator = APNsEmulator(configuration: .init(keys: [trusted], topics: ["com.example.app"]))
/// emulator.script(token: token, status: 410, reason: "Unregistered", times: 1)
/// let server = HTTPServer(configuration: .init(port: 0), handler: emulator.handler(logger: logger), logger: logger)
/// ```
///
/// It serves `POST /3/device/{token}` over **HTTP/1.1** on our own server (Apple's service is
/// HTTP/2 only), checks requests the way Apple documents (device token, provider token, topic, push
/// type, priority, expiration, collapse id, apns-id, payload size) and answers with Apple's statuses and
/// `{"reason": ...}` bodies. Accepted notifications are kept per device token, at most
/// ``Configuration/maximumStoredPerToken``, for simulated devices to collect by long-poll.
///
/// Control routes: `POST /emulator/faults`, `POST /emulator/devices`,
/// `GET /emulator/devices/{token}/notifications?wait=SECONDS`, `GET /emulator/stats`
/// (see docs/apns-emulator.md).
public final class APNsEmulator: Sendable {
    /// What the emulator trusts and accepts.
    public struct Configuration: Sendable {
        /// Keys provider tokens may be signed with; empty accepts requests without checking `authorization`.
        public var keys: [ES256Verifier.TrustedKey]
        /// Allowed `apns-topic` values (bundle ids); empty allows any topic.
        public var topics: Set<String>
        /// Older notifications of a token are dropped beyond this many.
        public var maximumStoredPerToken: Int
        /// The longest long-poll `wait`; keep it below the server's handler timeout.
        public var maximumWait: Duration

        public init(
            keys: [ES256Verifier.TrustedKey] = [], topics: Set<String> = [], maximumStoredPerToken: Int = 100,
            maximumWait: Duration = .seconds(25)
        ) {
            self.keys = keys
            self.topics = topics
            self.maximumStoredPerToken = maximumStoredPerToken
            self.maximumWait = maximumWait
        }
    }

    struct Waiter {
        var id: UUID
        var continuation: CheckedContinuation<[APNsEmulatorNotification], Never>
    }

    /// Who waits: one device, or every device of an app.
    enum Mailbox: Hashable {
        case token(String)
        case topic(String)
    }

    struct State {
        var stored: [String: [APNsEmulatorNotification]] = [:]
        var waiters: [Mailbox: [Waiter]] = [:]
        var faults: [String: APNsEmulatorFault] = [:]
        var deviceTopics: [String: String] = [:]
        var counts: [String: Int] = [:]
        /// Accepted Live Activity pushes, oldest first (at most ``liveActivityLogSize``).
        var liveActivities: [APNsEmulatorNotification] = []
        /// Provider tokens whose signature verified, so that reused tokens cost no ECDSA (APNs, too,
        /// expects one token reused for up to an hour).
        var verifiedTokens: [String: ES256Verifier.Claims] = [:]

        /// Removes and returns what is stored for `mailbox`, oldest first per device.
        mutating func take(_ mailbox: Mailbox) -> [APNsEmulatorNotification] {
            switch mailbox {
            case .token(let token):
                defer { stored[token] = nil }
                return stored[token] ?? []
            case .topic(let topic):
                var taken: [APNsEmulatorNotification] = []
                // A bundle id's mailbox also holds its Live Activity pushes (`<bundle id>.push-type.liveactivity`).
                let topics: Set = [topic, topic + ".push-type.liveactivity"]
                for (token, notifications) in stored where notifications.contains(where: { topics.contains($0.topic) })
                {
                    taken += notifications.filter { topics.contains($0.topic) }
                    let others = notifications.filter { !topics.contains($0.topic) }
                    stored[token] = others.isEmpty ? nil : others
                }
                return taken
            }
        }
    }

    /// Verified tokens remembered; the cache is emptied when it is full.
    static let verifiedTokenCacheSize = 64

    public let configuration: Configuration
    let verifier: ES256Verifier
    let clock: any TidingsClock
    let state = LockedBox(State())

    public init(configuration: Configuration, clock: any TidingsClock = SystemClock()) {
        self.configuration = configuration
        self.verifier = ES256Verifier(keys: configuration.keys)
        self.clock = clock
    }

    // MARK: Scripting

    /// Answers requests for `token` with `status` and `reason`: the next `times` requests, or all of them
    /// when `times` is nil. A 410 answer carries the current time as its `timestamp`.
    public func script(token: String, status: Int, reason: String, times: Int? = nil) {
        state.withLock {
            $0.faults[token.lowercased()] = APNsEmulatorFault(status: status, reason: reason, times: times)
        }
    }

    /// Removes the scripted answer of `token`.
    public func clearScript(token: String) {
        state.withLock { $0.faults[token.lowercased()] = nil }
    }

    /// Registers `token` as belonging to the app `topic`: pushes to it with another topic get
    /// `DeviceTokenNotForTopic`.
    public func registerDevice(token: String, topic: String) {
        state.withLock { $0.deviceTopics[token.lowercased()] = topic }
    }

    /// Answers counted so far, keyed `"200"` or `"<status> <reason>"`.
    public var counts: [String: Int] { state.withLock { $0.counts } }

    // MARK: Devices

    /// Removes and returns what arrived for `token`; when nothing has, waits up to `wait` (bounded by
    /// ``Configuration/maximumWait``) for the next arrival. Never blocks a thread.
    public func collect(token: String, wait: Duration = .zero) async -> [APNsEmulatorNotification] {
        await collect(from: .token(token.lowercased()), wait: wait)
    }

    /// Removes and returns what arrived for every device of the app `topic`, waiting as
    /// ``collect(token:wait:)`` does: one long-poll serves a whole fleet of simulated devices.
    public func collect(topic: String, wait: Duration = .zero) async -> [APNsEmulatorNotification] {
        await collect(from: .topic(topic), wait: wait)
    }

    private func collect(from mailbox: Mailbox, wait: Duration) async -> [APNsEmulatorNotification] {
        let wait = min(wait, configuration.maximumWait)
        let ready = state.withLock { $0.take(mailbox) }
        if !ready.isEmpty || wait <= .zero { return ready }
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> [APNsEmulatorNotification]? in
                let stored = state.take(mailbox)
                if !stored.isEmpty { return stored }
                state.waiters[mailbox, default: []].append(Waiter(id: id, continuation: continuation))
                return nil
            }
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            // Held strongly: the waiter's continuation must be resumed, and the wait is bounded.
            Task {
                try? await clock.sleep(for: wait)
                self.expireWaiter(mailbox, id: id)
            }
        }
    }

    private func expireWaiter(_ mailbox: Mailbox, id: UUID) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters[mailbox]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters[mailbox]?.remove(at: index)
        }
        waiter?.continuation.resume(returning: [])
    }

    /// Hands `notification` to a waiting fleet or device, or stores it (dropping the oldest past the bound).
    func deliver(_ notification: APNsEmulatorNotification) {
        let token = notification.deviceToken
        let waiter = state.withLock { state -> Waiter? in
            for mailbox in [Mailbox.topic(notification.topic), .token(token)] {
                if var waiters = state.waiters[mailbox], !waiters.isEmpty {
                    let first = waiters.removeFirst()
                    state.waiters[mailbox] = waiters.isEmpty ? nil : waiters
                    return first
                }
            }
            var stored = state.stored[token] ?? []
            stored.append(notification)
            if stored.count > configuration.maximumStoredPerToken {
                stored.removeFirst(stored.count - configuration.maximumStoredPerToken)
            }
            state.stored[token] = stored
            return nil
        }
        waiter?.continuation.resume(returning: [notification])
    }

    /// The scripted answer for `token`, consuming one use of a counted script.
    func takeFault(token: String) -> APNsEmulatorFault? {
        state.withLock { state in
            guard var fault = state.faults[token] else { return nil }
            if let remaining = fault.remaining {
                if remaining <= 1 {
                    state.faults[token] = nil
                } else {
                    fault.remaining = remaining - 1
                    state.faults[token] = fault
                }
            }
            return fault
        }
    }

    func count(status: Int, reason: String?) {
        let key = reason.map { "\(status) \($0)" } ?? "\(status)"
        state.withLock { $0.counts[key, default: 0] += 1 }
    }
}
