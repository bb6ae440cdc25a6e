import Foundation
import TidingsModel
import TidingsStore

/// One person's data in every place a store keeps a user's data, for the tests that erase them and then look
/// for them in the whole store (docs/security.md, *What erasure does*).
package enum ErasureFixture {
    package static let appID = "app_erasure"
    package static let userID = "erasure-subject-7q2x"
    package static let email = "ada.erasure.7q2x@example.org"
    package static let firstName = "Adalindeq"
    /// What must appear nowhere after the erasure.
    package static let personal = [userID, email, firstName]
    package static let now: Int64 = 1_800_000_000_000

    /// The request the tests erase with: a fixed digest and pseudonym (the server computes them with its key).
    package static let erasure = UserErasure(
        appID: appID, userID: userID, pseudonym: "erased:00112233445566778899aabbccddeeff",
        digest: Array(repeating: 0xab, count: 32), erasedAt: now + 60_000)

    /// The app, the user on two installations with a first name and an email, another user on a third, tags,
    /// user profiles, events whose value and attributes name the user, a message to both users (plan and
    /// deliveries), audit entries of the user's routes, a kept idempotent answer naming the user, and two
    /// forwarders.
    package static func populate(_ store: any Store) throws {
        try store.createApp(AppRecord(id: appID, name: "erasure", bundleID: "com.example.erasure", createdAt: now))
        for (index, (installation, user)) in [("phone", userID), ("pad", userID), ("bob-phone", "bob")].enumerated() {
            var update = InstallationUpdate()
            update.userID = .set(user)
            update.apnsToken = .set(String(repeating: String(format: "%02x", index + 1), count: 32))
            update.attributes =
                user == userID
                ? ["first_name": .string(firstName), "email": .string(email), "plan": .string("gold")]
                : ["first_name": .string("Bob")]
            _ = try store.upsertInstallation(appID: appID, installationID: installation, update: update, now: now)
        }
        _ = try store.replaceTags(appID: appID, userID: userID, tags: ["vip", "erasure-only"], limits: TagLimits())
        _ = try store.replaceTags(appID: appID, userID: "bob", tags: ["vip"], limits: TagLimits())
        _ = try store.updateUserProfile(appID: appID, userID: userID, now: now) { _ in
            ["email": .string(email), "nickname": .string(firstName)]
        }
        _ = try store.updateUserProfile(appID: appID, userID: "bob", now: now) { _ in ["plan": .string("free")] }
        let events = [
            TidingsEvent(
                type: .open, occurredAt: now, installationID: "phone", userID: userID, messageID: "m1",
                campaignID: "c1", value: "mailto:\(email)", attributes: ["greeting": .string("Hi \(firstName)")]),
            TidingsEvent(
                type: .delivery, occurredAt: now, installationID: "pad", userID: userID, messageID: "m1",
                campaignID: "c1", attributes: ["email": .string(email)]),
            TidingsEvent(
                type: .delivery, occurredAt: now, installationID: "bob-phone", userID: "bob", messageID: "m1",
                campaignID: "c1"),
        ]
        _ = try store.insertEvents(appID: appID, events: events, receivedAt: now)
        let plan = try JSONValue.object([
            "target": ["user_ids": .array([.string(userID), "bob"])], "kind": "alert",
        ]).serializedString(sortedKeys: true)
        try store.createMessage(
            MessageRecord(
                id: "m1", appID: appID, kind: .alert, campaignID: "c1", topic: "com.example.erasure",
                payload: Array(#"{"aps":{"alert":"Sale"}}"#.utf8), priority: 10, createdAt: now, plan: plan),
            deliveries: [
                MessageDelivery(
                    messageID: "m1", appID: appID, installationID: "phone", token: "t1", targetUserID: userID),
                MessageDelivery(
                    messageID: "m1", appID: appID, installationID: "bob-phone", token: "t3", targetUserID: "bob"),
            ])
        for target in ["/v1/users/\(userID)/tags", "/v1/users/\(userID)/export", "/v1/users/bob/tags"] {
            _ = try store.appendAudit(
                AuditEntry(
                    at: now, operatorName: "", action: "PUT", target: target, appID: appID, status: 200,
                    credential: .serverKey, keyID: "key_1"))
        }
        let record = IdempotencyRecord(
            scope: "\(appID)\nkey_1", key: "retry-1", fingerprint: Array(repeating: 1, count: 32), createdAt: now,
            expiresAt: now + 86_400_000, lockedUntil: now + 60_000)
        _ = try store.claimIdempotencyKey(record, now: now)
        try store.completeIdempotencyKey(
            scope: record.scope, key: record.key,
            response: IdempotentResponse(
                status: 202, headers: "[]", body: Array(#"{"target":{"user_ids":["\#(userID)"]}}"#.utf8)))
        for (id, kind) in [("fwd_hook", ForwarderRecord.Kind.webhook), ("fwd_file", .file)] {
            try store.createForwarder(
                ForwarderRecord(
                    id: id, appID: appID, kind: kind, settings: ["url": "https://example.org"], createdAt: now))
        }
    }

    /// Where `text` occurs in `haystack` (each a table and column, or a file), for a readable failure.
    package static func occurrences(of needles: [String], in haystack: [(place: String, bytes: [UInt8])]) -> [String] {
        var found: [String] = []
        for (place, bytes) in haystack {
            for needle in needles where contains(bytes, Array(needle.utf8)) {
                found.append("\(needle) in \(place)")
            }
        }
        return found
    }

    package static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first && bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

extension Store {
    /// Erases `userID` with a digest and pseudonym made from the id (tests that do not look at them).
    package func eraseUser(appID: String, userID: String, at erasedAt: Int64 = 0) throws -> ForgottenUser {
        let digest = Array(userID.utf8.reversed()) + Array(repeating: 0, count: 8)
        return try eraseUser(
            UserErasure(
                appID: appID, userID: userID, pseudonym: "erased:test-\(userID.utf8.count)", digest: digest,
                erasedAt: erasedAt))
    }
}
