import TidingsModel
import TidingsStore

/// Whom a run belongs to: a user (`user:ID`, every installation of theirs) or one installation
/// (`installation:ID`) when the event that entered them carried no user.
struct JourneySubject: Sendable, Hashable {
    var userID: String?
    var installationID: String?

    init?(_ text: String) {
        if text.hasPrefix("user:") {
            userID = String(text.dropFirst(5))
        } else if text.hasPrefix("installation:") {
            installationID = String(text.dropFirst(13))
        } else {
            return nil
        }
    }

    init(signal: JourneySignal) {
        if let userID = signal.userID { self.userID = userID } else { installationID = signal.installationID }
    }

    var text: String { userID.map { "user:" + $0 } ?? "installation:" + (installationID ?? "") }

    /// Where a send step's message goes: the user's installations, or the one installation.
    var target: JSONValue {
        if let userID { return .object(["user_ids": .array([.string(userID)])]) }
        return .object(["installation_ids": .array([.string(installationID ?? "")])])
    }

    /// The subjects a signal concerns: its user's runs and its installation's (none for a user profile's change).
    static func all(of signal: JourneySignal) -> [String] {
        (signal.userID.map { ["user:" + $0] } ?? [])
            + (signal.installationID.isEmpty ? [] : ["installation:" + signal.installationID])
    }
}
