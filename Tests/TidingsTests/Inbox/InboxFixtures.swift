import Foundation
import Tidings

/// Payloads for the inbox and badge tests.
enum InboxFixtures {
    static func payload(_ id: String?, title: String = "T", expiresAt: Date? = nil) -> PushPayload {
        PushPayload(
            messageID: id, alert: PushAlert(title: title, body: "body of \(id ?? "-")"),
            defaultAction: .deepLink(url: "myapp://m/\(id ?? "")"), inbox: InboxPolicy(expiresAt: expiresAt))
    }
}
