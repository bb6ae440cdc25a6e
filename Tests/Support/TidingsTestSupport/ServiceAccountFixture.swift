import TidingsCrypto
import TidingsModel

/// A Google service-account JSON file as the Firebase console gives one, with a fresh RSA key.
package enum ServiceAccountFixture {
    package static let key = RS256Key.generate()

    /// The file's bytes, after `change` edits its fields.
    package static func document(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> [UInt8] {
        var object: [String: JSONValue] = [
            "type": "service_account", "project_id": "shop-prod", "private_key_id": "abc123",
            "private_key": .string(key.privateKeyPEM() ?? ""),
            "client_email": "fcm@shop-prod.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        change(&object)
        return (try? JSONValue.object(object).serialized()) ?? []
    }
}
