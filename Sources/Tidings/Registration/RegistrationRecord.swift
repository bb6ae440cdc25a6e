import Foundation
import TidingsModel

/// What the registrar keeps on disk between launches: the desired state, what the server acknowledged,
/// and the backoff in progress.
struct RegistrationRecord: Sendable, Hashable {
    /// The file name inside the shared container directory.
    static let fileName = "tidings-registration.json"

    var desired = InstallationState()
    /// The fingerprint of the last body the server accepted; nil before the first success.
    var acknowledgedFingerprint: String?
    /// When that was, in milliseconds since 1970.
    var acknowledgedAt: Int64?
    /// The user id of the last body the server accepted: a body with another one changes the binding and
    /// carries the user token.
    var acknowledgedUserID: String?
    /// Failed attempts since the last success.
    var consecutiveFailures = 0
    /// No attempt before this time, in milliseconds since 1970.
    var notBefore: Int64?
    /// Attribute keys removed from ``desired`` that the server may still hold: sent as `null` until a sync
    /// carrying them succeeds.
    var removedAttributes: Set<String> = []
    /// User profile attribute changes not yet sent, oldest first; each is for the user logged in when it was
    /// made.
    var pendingUserAttributes: [PendingUserAttributes] = []

    var json: JSONValue {
        func integer(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
        return .object([
            "version": 2,
            "desired": desired.requestBody(),
            "acknowledged_fingerprint": acknowledgedFingerprint.map(JSONValue.string) ?? .null,
            "acknowledged_at": integer(acknowledgedAt),
            "acknowledged_user_id": acknowledgedUserID.map(JSONValue.string) ?? .null,
            "consecutive_failures": .integer(Int64(consecutiveFailures)),
            "not_before": integer(notBefore),
            "removed_attributes": .array(removedAttributes.sorted().map(JSONValue.string)),
            "pending_user_attributes": .array(pendingUserAttributes.map(\.json)),
        ])
    }

    init() {}

    init(json: JSONValue) {
        func integer(_ key: String) -> Int64? {
            if case .integer(let value)? = json[key] { return value }
            return nil
        }
        desired = json["desired"].map(InstallationState.init(json:)) ?? InstallationState()
        acknowledgedFingerprint = json["acknowledged_fingerprint"]?.stringValue
        acknowledgedAt = integer("acknowledged_at")
        if json["acknowledged_user_id"] == nil, acknowledgedFingerprint != nil {
            // A version 1 record did not note the user; its last sync most likely carried the desired one, and
            // assuming so avoids asking for a user token nothing needs.
            acknowledgedUserID = desired.userID
        } else {
            acknowledgedUserID = json["acknowledged_user_id"]?.stringValue
        }
        consecutiveFailures = Int(integer("consecutive_failures") ?? 0)
        notBefore = integer("not_before")
        removedAttributes = Set(json["removed_attributes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        pendingUserAttributes =
            json["pending_user_attributes"]?.arrayValue?.compactMap(PendingUserAttributes.init(json:)) ?? []
    }

    /// The record stored in `directory`, or a fresh one when there is none.
    /// - Throws: ``RegistrationError/storage(_:)`` when the file exists but is not a record; the caller
    ///   decides whether to start over.
    static func load(from directory: URL) throws(RegistrationError) -> RegistrationRecord {
        let file = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return RegistrationRecord() }
        guard let json = try? JSONValue.parse(data), json.objectValue != nil else {
            throw .storage("\(file.path) is not a registration record")
        }
        return RegistrationRecord(json: json)
    }

    /// Writes the record to `directory` atomically (a temporary file renamed over the old one), so a crash
    /// leaves either the old record or the new one.
    func save(to directory: URL) throws(RegistrationError) {
        let file = directory.appendingPathComponent(Self.fileName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try json.serializedData(sortedKeys: true).write(to: file, options: [.atomic])
        } catch {
            throw .storage("cannot write \(file.path): \(error)")
        }
    }
}
