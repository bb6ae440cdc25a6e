import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// Sends one ActivityKit push to a list of Live Activity tokens through the app's push provider, a bounded
/// number at a time, and keeps the token registry right: each token's last outcome is recorded, and a token
/// APNs answers 410 for (the activity ended, the app was deleted) is removed.
struct LiveActivitySender: Sendable {
    /// What became of one request's pushes.
    struct Summary: Sendable {
        var targets = 0
        var sent = 0
        var removed = 0
        var failedByReason: [String: Int] = [:]
        var skippedByReason: [String: Int] = [:]
        var downgraded = 0
    }

    /// One push to make: a token and the priority it goes at.
    struct Recipient: Sendable {
        var token: LiveActivityToken
        var priority: Int
    }

    let store: any Store
    let provider: any PushProvider
    let configuration: LiveActivityLimits
    let clock: any TidingsClock
    let logger: Logger

    /// Sends `payload` to every recipient; returns the counts.
    func send(
        _ recipients: [Recipient], payload: [UInt8], topic: String, expiration: Date?, into summary: inout Summary
    ) async {
        let outcomes = await withTaskGroup(of: (LiveActivityToken, PushOutcome).self) { group in
            var results: [(LiveActivityToken, PushOutcome)] = []
            var next = recipients.makeIterator()
            func startNext() -> Bool {
                guard let recipient = next.next() else { return false }
                group.addTask { [self] in
                    (recipient.token, await push(recipient, payload: payload, topic: topic, expiration: expiration))
                }
                return true
            }
            for _ in 0..<max(1, configuration.concurrency) where !startNext() { break }
            while let result = await group.next() {
                results.append(result)
                _ = startNext()
            }
            return results
        }
        let now = clock.now.millisecondsSince1970
        for (token, outcome) in outcomes {
            let label: String
            switch outcome.disposition {
            case .sent:
                summary.sent += 1
                label = "sent"
            case .tokenInvalid:
                summary.removed += 1
                label = outcome.reason ?? "Unregistered"
                do {
                    try store.removeLiveActivityToken(appID: token.appID, token: token.token)
                } catch {
                    logger.warning("cannot remove a Live Activity token", metadata: ["error": "\(error)"])
                }
                continue
            case .skipped:
                label = outcome.reason ?? "skipped"
                summary.skippedByReason[label, default: 0] += 1
            case .failed, .tokenMismatch, .retry, .interrupted:
                label = outcome.reason ?? "failed"
                summary.failedByReason[label, default: 0] += 1
            }
            do {
                try store.recordLiveActivityOutcome(appID: token.appID, token: token.token, outcome: label, at: now)
            } catch {
                logger.warning("cannot record a Live Activity outcome", metadata: ["error": "\(error)"])
            }
        }
    }

    /// One push, retried while the provider says so.
    private func push(_ recipient: Recipient, payload: [UInt8], topic: String, expiration: Date?) async -> PushOutcome {
        let push = OutgoingPush(
            token: recipient.token.token,
            environment: OutgoingPush.Environment(rawValue: recipient.token.environment)
                ?? .production,
            topic: topic, pushType: .liveActivity, priority: recipient.priority, expiration: expiration,
            payload: payload)
        var delay = configuration.retryDelay
        var attempt = 0
        while true {
            let outcome = await provider.send(push)
            guard case .retry(let after) = outcome.disposition, attempt < configuration.retries else { return outcome }
            attempt += 1
            let wait = min(after ?? delay, configuration.maximumRetryDelay)
            do {
                try await clock.sleep(for: wait)
            } catch {
                return outcome
            }
            delay *= 2
        }
    }
}
