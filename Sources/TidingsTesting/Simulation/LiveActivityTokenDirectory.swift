import TidingsModel

/// Which simulated device owns each Live Activity token, so the fleet can hand a push sent to a token
/// that did not exist when the fleet was laid out (an activity's update token) to its device.
///
/// A device enters a token before it reports it to tidingsd, so no push can reach a token the directory
/// does not know yet.
final class LiveActivityTokenDirectory: Sendable {
    private let owners = LockedBox<[String: Int]>([:])

    func assign(_ token: String, toDevice index: Int) {
        owners.withLock { $0[token] = index }
    }

    func device(for token: String) -> Int? {
        owners.withLock { $0[token] }
    }
}
