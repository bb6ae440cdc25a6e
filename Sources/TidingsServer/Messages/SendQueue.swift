import TidingsCampaigns
import TidingsModel
import TidingsStore

/// A fan-out worker's claimed deliveries waiting for a push slot, one line per message: transactional
/// messages first, the others taking turns, each only when ``SendThrottle`` admits it.
///
/// Each delivery waits with the end of its claim's lease. One whose lease has passed is dropped instead of
/// sent: the store may already have handed it to another worker (or back to this one, queued again), and
/// sending it would send it twice. That happens when the database was out of reach for longer than the lease.
///
/// The worker checks the claims of what waits (``waiting(uncheckedOnly:)``, ``unchecked``) before sending and drops the ones
/// it lost (``drop(_:)``): the claims of an instance taken for dead are released and may already be sent by
/// another.
struct SendQueue {
    /// A delivery's row: its message and installation.
    struct Key: Hashable {
        var messageID: String
        var installationID: String

        init(_ delivery: MessageDelivery) {
            messageID = delivery.messageID
            installationID = delivery.installationID
        }
    }

    /// What ``next(throttle:)`` found.
    enum Next {
        case send(MessageDelivery, MessageRecord)
        /// Everything waiting is paced; ask again after this long.
        case wait(Duration)
        case empty
    }

    /// A claimed delivery and when its claim's lease ends (unix milliseconds).
    private struct Entry {
        var delivery: MessageDelivery
        var leaseUntil: Int64
        /// Whether a check of claims has found it held since it was enqueued.
        var checked = false
    }

    /// One message's waiting deliveries, oldest first.
    private struct Line {
        var deliveries: [Entry] = []
        var head = 0
        var count: Int { deliveries.count - head }

        mutating func pop() -> Entry {
            defer {
                head += 1
                if head > 256 && head * 2 > deliveries.count {
                    deliveries.removeFirst(head)
                    head = 0
                }
            }
            return deliveries[head]
        }
    }

    /// Each message read for this queue; nil when it is gone.
    private var messages: [String: MessageRecord?] = [:]
    /// Each app's send settings, read with its last chunk.
    var settings: [String: AppSendSettings] = [:]
    private var lines: [String: Line] = [:]
    /// Transactional messages with deliveries waiting, oldest claim first.
    private var priority: [String] = []
    /// The other messages with deliveries waiting, in turn from ``cursor``.
    private var rotation: [String] = []
    private var cursor = 0
    private(set) var count = 0
    /// Deliveries dropped because their lease passed while they waited.
    private(set) var expired = 0
    /// Deliveries whose claims no check has found held yet (``drop(_:)`` marks them checked).
    private(set) var unchecked = 0
    /// Whether each message's stored payloads hold `{{` at all; only those are rendered per delivery.
    var templated: [String: Bool] = [:]
    /// Each templated message's payloads compiled, by message id and payload key; nil when one has no template.
    var personalized: [String: [String: PersonalizedPayload?]] = [:]
    /// Payloads rendered for one delivery, by ``renderedKey(_:)``; taken when it is sent.
    var rendered: [String: [UInt8]] = [:]
    /// Deliveries handed out by ``next(throttle:now:)`` whose answers are not back yet, by message.
    private var outstanding: [String: Int] = [:]

    var isEmpty: Bool { count == 0 }

    func knowsMessage(_ id: String) -> Bool { messages[id] != nil }

    mutating func addMessage(_ id: String, _ message: MessageRecord?) {
        messages[id] = .some(message)
        templated[id] =
            message.map { message in
                PersonalizedPayload.mayContainTemplates(message.payload)
                    || message.payloadVariants.values.contains(where: PersonalizedPayload.mayContainTemplates)
            } ?? false
    }

    func message(_ delivery: MessageDelivery) -> MessageRecord? { messages[delivery.messageID] ?? nil }

    /// Adds deliveries whose message has been read with ``addMessage(_:_:)``, claimed until `leaseUntil`;
    /// `checked` when the claim itself is as good as a check (the worker's last check still holds).
    mutating func enqueue(_ deliveries: [MessageDelivery], leaseUntil: Int64, checked: Bool = false) {
        for delivery in deliveries {
            guard let message = message(delivery) else { continue }
            if lines[delivery.messageID] == nil {
                if message.messageType == .transactional {
                    priority.append(delivery.messageID)
                } else {
                    rotation.append(delivery.messageID)
                }
            }
            lines[delivery.messageID, default: Line()].deliveries.append(
                Entry(delivery: delivery, leaseUntil: leaseUntil, checked: checked))
            count += 1
            if !checked { unchecked += 1 }
        }
    }

    /// Notes that a delivery handed out by ``next(throttle:now:)`` has its answer.
    mutating func answered(_ delivery: MessageDelivery) {
        let left = (outstanding[delivery.messageID] ?? 1) - 1
        outstanding[delivery.messageID] = left > 0 ? left : nil
    }

    /// Whether deliveries of the message wait here or are out with the provider.
    func holds(_ messageID: String) -> Bool { lines[messageID] != nil || outstanding[messageID] != nil }

    /// Forgets the messages (records, templates) of which nothing waits or is out: a worker that sends for
    /// hours, one journey push after another, keeps only those it is sending. A message claimed again is read
    /// again.
    mutating func forgetIdleMessages() {
        for id in messages.keys where !holds(id) {
            messages[id] = nil
            templated[id] = nil
            personalized[id] = nil
        }
    }

    /// Messages whose waiting deliveries already fill their rate's horizon: the next claim leaves them out.
    var saturatedMessages: Set<String> {
        var saturated = Set<String>()
        for (id, line) in lines {
            guard let message = messages[id] ?? nil else { continue }
            let horizon = DeliveryClaim(limit: 0).available(
                due: .max, transactional: message.messageType == .transactional, messageRate: message.ratePerSecond,
                appRate: settings[message.appID]?.ratePerSecond)
            if line.count >= horizon { saturated.insert(id) }
        }
        return saturated
    }

    /// The next delivery its message's and app's rates allow now (`now` in unix milliseconds), still inside its
    /// lease: a transactional one when any may go, else the next message in turn that may.
    mutating func next(throttle: SendThrottle, now: Int64) -> Next {
        while true {
            let next = nextAdmitted(throttle: throttle)
            guard case .send(let entry, let message) = next else {
                if case .wait(let duration) = next { return .wait(duration) }
                return .empty
            }
            if entry.leaseUntil > now {
                outstanding[entry.delivery.messageID, default: 0] += 1
                return .send(entry.delivery, message)
            }
            expired += 1
            rendered[Self.renderedKey(entry.delivery)] = nil
        }
    }

    private enum Admitted {
        case send(Entry, MessageRecord)
        case wait(Duration)
        case empty
    }

    private mutating func nextAdmitted(throttle: SendThrottle) -> Admitted {
        var shortestWait: Duration?
        func admitted(_ id: String) -> MessageRecord? {
            guard let message = messages[id] ?? nil else { return nil }
            let appRate = settings[message.appID]?.ratePerSecond
            // Unpaced (the common case): no lock, no bookkeeping.
            if message.ratePerSecond == nil && appRate == nil { return message }
            let wait = throttle.admit(
                messageID: id, messageRate: message.ratePerSecond, appID: message.appID,
                appRate: appRate, transactional: message.messageType == .transactional)
            guard let wait else { return message }
            shortestWait = min(shortestWait ?? wait, wait)
            return nil
        }
        for (index, id) in priority.enumerated() {
            if let message = admitted(id) {
                let delivery = pop(id)
                if lines[id] == nil { priority.remove(at: index) }
                return .send(delivery, message)
            }
        }
        for step in 0..<rotation.count {
            let index = (cursor + step) % rotation.count
            let id = rotation[index]
            if let message = admitted(id) {
                let delivery = pop(id)
                if lines[id] == nil {
                    rotation.remove(at: index)
                    cursor = rotation.isEmpty ? 0 : index % rotation.count
                } else {
                    cursor = (index + 1) % rotation.count
                }
                return .send(delivery, message)
            }
        }
        return shortestWait.map(Admitted.wait) ?? .empty
    }

    /// The deliveries waiting, for a check of their claims: every one, or those no check has found held yet.
    func waiting(uncheckedOnly: Bool = false) -> [MessageDelivery] {
        lines.values.flatMap { line in
            line.deliveries[line.head...].filter { !uncheckedOnly || !$0.checked }.map(\.delivery)
        }
    }

    /// Removes the waiting deliveries in `lost` without sending them, and marks every delivery still waiting as
    /// checked.
    /// - Returns: how many were removed.
    mutating func drop(_ lost: Set<Key>) -> Int {
        guard unchecked > 0 || !lost.isEmpty else { return 0 }
        unchecked = 0
        var removed = 0
        for (id, line) in lines {
            var kept = line.deliveries[line.head...].filter { !lost.contains(Key($0.delivery)) }
            for entry in line.deliveries[line.head...] where lost.contains(Key(entry.delivery)) {
                rendered[Self.renderedKey(entry.delivery)] = nil
            }
            removed += line.count - kept.count
            for index in kept.indices { kept[index].checked = true }
            lines[id] = kept.isEmpty ? nil : Line(deliveries: Array(kept))
        }
        forget(removed)
        return removed
    }

    /// Removes every waiting delivery of the messages `cancelled`, unsent: their rows are already recorded
    /// cancelled in the store.
    /// - Returns: how many were removed.
    mutating func dropMessages(_ cancelled: Set<String>) -> Int {
        var removed = 0
        for id in cancelled {
            guard let line = lines.removeValue(forKey: id) else { continue }
            for entry in line.deliveries[line.head...] {
                if !entry.checked { unchecked -= 1 }
                rendered[Self.renderedKey(entry.delivery)] = nil
            }
            removed += line.count
        }
        if removed > 0 { forget(removed) }
        return removed
    }

    /// Accounts for `removed` deliveries taken out of their lines, and takes the messages left with none out
    /// of their turns.
    private mutating func forget(_ removed: Int) {
        count -= removed
        priority.removeAll { lines[$0] == nil }
        rotation.removeAll { lines[$0] == nil }
        cursor = rotation.isEmpty ? 0 : cursor % rotation.count
    }

    /// Empties the queue: the deliveries still waiting, for a worker that stops to hand back.
    mutating func removeAll() -> [MessageDelivery] {
        let waiting = lines.values.flatMap { $0.deliveries[$0.head...].map(\.delivery) }
        lines = [:]
        priority = []
        rotation = []
        cursor = 0
        count = 0
        unchecked = 0
        rendered = [:]
        return waiting
    }

    private mutating func pop(_ id: String) -> Entry {
        let delivery = lines[id]!.pop()
        count -= 1
        if lines[id]!.count == 0 { lines[id] = nil }
        return delivery
    }
}
