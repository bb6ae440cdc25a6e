import Foundation
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore

/// Prints admin results as aligned text for people or as JSON (`--json`) for machines, on standard output.
struct AdminOutput {
    var json: Bool

    func apps(_ apps: [AppRecord], created: Bool) {
        if json {
            let values = apps.map(Self.appJSON)
            write(created ? values[0] : ["apps": .array(values)])
            return
        }
        table(
            ["ID", "NAME", "BUNDLE ID", "IDENTITY", "CREATED"],
            apps.map { [$0.id, $0.name, $0.bundleID, $0.identityVerification.rawValue, Self.date($0.createdAt)] })
    }

    /// A registered identity key: its id, algorithm and public key.
    func identityKey(_ key: IdentityKeyRecord) {
        if json {
            write([
                "app_id": .string(key.appID), "key_id": .string(key.keyID),
                "algorithm": .string(key.algorithm.rawValue),
                "public_key": .string(key.publicKeyPEM), "created_at": .integer(key.createdAt),
            ])
            return
        }
        line("Identity key \(key.keyID) (\(key.algorithm.rawValue)) added to app \(key.appID).")
    }

    func removedIdentityKey(_ keyID: String) {
        if json {
            write(["removed": .string(keyID)])
            return
        }
        line("Identity key \(keyID) removed.")
    }

    func createdKey(_ key: APIKeyRecord, secret: String) {
        if json {
            guard case .object(var object) = Self.keyJSON(key) else { return }
            object["key"] = .string(secret)
            write(.object(object))
            return
        }
        line(key.kind == .admin ? "admin key \(key.id):" : "\(key.kind.rawValue) key \(key.id) for app \(key.appID):")
        line(secret)
        line("Store it now: it is not shown again.")
    }

    /// Keys as a table (app names from `appNames`) or `{"keys":[...]}`; never the secrets.
    func keys(_ keys: [APIKeyRecord], appNames: [String: String]) {
        if json {
            write(["keys": .array(keys.map(Self.keyJSON))])
            return
        }
        table(
            ["ID", "APP", "KIND", "KEY", "CREATED", "REVOKED"],
            keys.map {
                [
                    $0.id, appNames[$0.appID] ?? $0.appID, $0.kind.rawValue, $0.hint, Self.date($0.createdAt),
                    $0.revokedAt.map(Self.date) ?? "-",
                ]
            })
    }

    /// The stored APNs key id and team id of `app`; never the key.
    func apnsCredentials(_ credentials: APNsCredentials, app: AppRecord) {
        if json {
            write([
                "app_id": .string(app.id), "key_id": .string(credentials.keyID),
                "team_id": .string(credentials.teamID),
            ])
            return
        }
        line("APNs key \(credentials.keyID) (team \(credentials.teamID)) stored for app \(app.name) (\(app.id)).")
    }

    /// The stored service account's project and client email of `app`; never the key.
    func fcmCredentials(_ account: FCMServiceAccount, app: AppRecord) {
        if json {
            write([
                "app_id": .string(app.id), "project_id": .string(account.projectID),
                "client_email": .string(account.clientEmail),
            ])
            return
        }
        line(
            "FCM service account \(account.clientEmail) (project \(account.projectID)) stored for app \(app.name) (\(app.id))."
        )
    }

    static func appJSON(_ app: AppRecord) -> JSONValue {
        [
            "id": .string(app.id), "name": .string(app.name), "bundle_id": .string(app.bundleID),
            "created_at": .integer(app.createdAt), "identity_verification": .string(app.identityVerification.rawValue),
        ]
    }

    static func keyJSON(_ key: APIKeyRecord) -> JSONValue {
        [
            "id": .string(key.id), "app_id": .string(key.appID), "kind": .string(key.kind.rawValue),
            "hint": .string(key.hint), "created_at": .integer(key.createdAt),
            "revoked_at": key.revokedAt.map(JSONValue.integer) ?? .null,
        ]
    }

    private static func date(_ milliseconds: Int64) -> String {
        Date(millisecondsSince1970: milliseconds).ISO8601Format()
    }

    private func write(_ value: JSONValue) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    private func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    private func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let padded = row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            line(padded.joined(separator: "  "))
        }
    }
}
