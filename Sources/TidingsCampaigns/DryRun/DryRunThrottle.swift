/// Which pushes of a dry run go out before they expire at the send's pace: push `i` of the send goes out at
/// `start + i / rate`, one after another across the waves (a wave: the pushes that become due at one instant and
/// expire at one instant), and a push whose time reaches its expiry is not sent (`expired`, as
/// ``DeliveryPolicy`` decides when it is claimed that late). Expired pushes take no slot.
public struct DryRunThrottle {
    public struct Wave: Hashable {
        /// When the wave's pushes become due, unix milliseconds.
        var dueAt: Int64
        var expiresAt: Int64?
        var count: Int

        public init(dueAt: Int64, expiresAt: Int64?, count: Int) {
            self.dueAt = dueAt
            self.expiresAt = expiresAt
            self.count = count
        }
    }

    public struct Result: Equatable {
        /// Per wave, in the order given, how many go out before they expire.
        public var sent: [Int]
        public var firstSendAt: Int64?
        public var lastSendAt: Int64?
        /// When the last push's slot ends; the last push's time without a rate.
        public var endsAt: Int64?
    }

    /// Pushes per second; nil: all at once.
    var rate: Int?

    public init(rate: Int?) {
        self.rate = rate
    }

    public func run(_ waves: [Wave]) -> Result {
        var result = Result(sent: Array(repeating: 0, count: waves.count))
        // Milliseconds are kept fractional: at 3 pushes a second a slot is 333.3 ms.
        var free = -Double.infinity
        let order = waves.indices.sorted {
            (waves[$0].dueAt, waves[$0].expiresAt ?? .max) < (waves[$1].dueAt, waves[$1].expiresAt ?? .max)
        }
        for index in order {
            let wave = waves[index]
            guard wave.count > 0 else { continue }
            guard let rate, rate > 0 else {
                // Without a rate the whole wave goes out at its due time; the policy already skipped what expired.
                result.sent[index] = wave.count
                result.note(first: wave.dueAt, last: wave.dueAt, end: wave.dueAt)
                continue
            }
            let slot = 1000 / Double(rate)
            let start = max(Double(wave.dueAt), free)
            var sent = wave.count
            if let expiresAt = wave.expiresAt {
                // Push i goes at start + i·slot and is sent while that is before the expiry.
                let room = (Double(expiresAt) - start) / slot
                sent = room <= 0 ? 0 : min(wave.count, Int(room.rounded(.up)))
            }
            result.sent[index] = sent
            guard sent > 0 else { continue }
            free = start + Double(sent) * slot
            result.note(
                first: Int64(start.rounded(.up)), last: Int64((start + Double(sent - 1) * slot).rounded(.up)),
                end: Int64(free.rounded(.up)))
        }
        return result
    }
}

extension DryRunThrottle.Result {
    fileprivate mutating func note(first: Int64, last: Int64, end: Int64) {
        firstSendAt = min(firstSendAt ?? first, first)
        lastSendAt = max(lastSendAt ?? last, last)
        endsAt = max(endsAt ?? end, end)
    }
}
