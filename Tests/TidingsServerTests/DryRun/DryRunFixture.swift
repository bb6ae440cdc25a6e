import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// Dry-runs a message, then sends it for real to the end on the fixture's manual clock: the dry run's answer
/// must be what the send then does.
extension MessageFixture {
    /// `body` with `"dry_run": true`, answered 200.
    func dryRun(_ body: JSONValue) async throws -> JSONValue {
        var object = try #require(body.objectValue)
        object["dry_run"] = true
        let reply = try await send(.object(object))
        #expect(reply.status == 200, "\(reply.json)")
        return reply.json
    }

    /// How many messages the app has.
    func messageCount() throws -> Int {
        try store.messages(appID: "app_main", query: MessageListQuery(limit: 1000)).count
    }

    /// Dry-runs `body` (which must write nothing), then sends it and drives resolution and sending for `hours`
    /// of the manual clock in `step`s; expects the same reach, skips by reason and payloads.
    /// - Returns: the dry run's answer.
    @discardableResult
    func expectDryRunMatchesSend(
        _ body: JSONValue, hours: Int = 0, step: Duration = .seconds(15 * 60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let before = try messageCount()
        let pushesBefore = provider.pushes.count
        let answer = try await dryRun(body)
        #expect(try messageCount() == before, "a dry run stored a message", sourceLocation: sourceLocation)
        #expect(provider.pushes.count == pushesBefore, sourceLocation: sourceLocation)

        let reply = try await send(body)
        #expect(reply.status == 202, "\(reply.json)", sourceLocation: sourceLocation)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        let resolver = CampaignResolver(store: store, clock: clock)
        let steps = max(1, Int(Double(hours * 3600) / step.seconds) + 1)
        for index in 0..<steps {
            _ = try await resolver.drain()
            try await worker().drain()
            if index < steps - 1 { clock.advance(by: step) }
        }
        let status = try await self.status(messageID)
        let skippedByReason = status.json["counts"]?["skipped_by_reason"]?.objectValue ?? [:]
        let dryRunSkips = answer["reach"]?["skipped"]?.objectValue ?? [:]
        for (reason, count) in dryRunSkips {
            #expect(
                count == (skippedByReason[reason] ?? .integer(0)), "skipped \(reason)",
                sourceLocation: sourceLocation)
        }
        for reason in skippedByReason.keys {
            #expect(dryRunSkips[reason] != nil, "the dry run does not count \(reason)", sourceLocation: sourceLocation)
        }
        #expect(
            answer["reach"]?["would_send"] == status.json["counts"]?["sent"], "would_send",
            sourceLocation: sourceLocation)
        #expect(status.count("queued") == 0 && status.count("in_flight") == 0, sourceLocation: sourceLocation)

        // Each rendering is, byte for byte but for the message id, what its sample installation received.
        let pushes = provider.pushes[pushesBefore...]
        for rendering in answer["renderings"]?.arrayValue ?? [] {
            guard let installationID = rendering["installation_id"]?.stringValue,
                let push = pushes.first(where: { $0.installationID == installationID })
            else { continue }
            let received = try JSONValue.parse(push.payload)
            #expect(
                Self.withoutMessageID(received) == Self.withoutMessageID(rendering["payload"] ?? .null),
                "rendering for \(installationID)", sourceLocation: sourceLocation)
            #expect(
                rendering["payload_bytes"] == .integer(Int64(push.payload.count)), sourceLocation: sourceLocation)
        }
        return answer
    }

    /// `payload` with `tidings.id` (the message's id: a dry run's is a placeholder) blanked.
    static func withoutMessageID(_ payload: JSONValue) -> JSONValue {
        guard var object = payload.objectValue, var tidings = object["tidings"]?.objectValue else { return payload }
        tidings["id"] = "msg"
        object["tidings"] = .object(tidings)
        return .object(object)
    }
}
