import Foundation
import Testing
import Tidings
import TidingsTesting

/// An app key's batch comes from one installation, named and proven by its secret (docs/events.md).
@Suite struct EventUploaderInstallationTests {
    @Test func everyBatchNamesItsInstallationAndPresentsItsSecret() async throws {
        let harness = UploadHarness { $0.maximumBatchEvents = 2 }
        harness.enqueue(3)
        let summary = await harness.uploader.flush()
        #expect(summary.accepted == 3)
        #expect(harness.transport.requestCount == 2)
        for request in harness.transport.requests {
            #expect(request.header("X-Tidings-Installation") == "inst-1")
            #expect(request.header("x-tidings-installation-secret") == UploadFixtures.installation.secret.value)
        }
    }

    @Test func eventsWaitUntilTheInstallationHasRegisteredAndHoldsItsSecret() async throws {
        let harness = UploadHarness()
        harness.installation.withLock { $0 = nil }
        let ids = harness.enqueue(2)
        let held = await harness.uploader.flush()
        #expect(held.requests == 0)
        #expect(held.error == .notRegistered)
        #expect(held.error?.code == "installation_not_registered")
        #expect(held.remaining == 2)
        #expect(harness.queue.queuedIDs == ids)
        #expect(harness.queue.droppedCounts.isEmpty)
        // Past the threshold, still nothing is sent.
        harness.enqueue(60)
        _ = await harness.uploader.notifyEnqueued()
        #expect(harness.transport.requestCount == 0)

        harness.installation.withLock { $0 = UploadFixtures.installation }
        let sent = await harness.uploader.flush()
        #expect(sent.error == nil)
        #expect(sent.accepted == 62)
        #expect(harness.server.storedIDs.prefix(2) == ids[...])
    }

    /// 403 `installation_unknown` or `installation_secret_invalid`: nothing is dropped, uploading halts, and a
    /// new installation id or secret (the registrar registered again) is worth another try.
    @Test func aRefusedInstallationKeepsItsEventsAndHaltsUntilTheInstallationChanges() async throws {
        let refusal = #"{"error":{"code":"installation_secret_invalid","message":"no"}}"#
        let harness = UploadHarness(script: [.respond(status: 403, text: refusal)])
        let ids = harness.enqueue(3)
        let refused = await harness.uploader.flush()
        #expect(refused.error == .unauthorized(status: 403))
        #expect(refused.remaining == 3)

        let again = await harness.uploader.flush()
        #expect(again.requests == 0)
        #expect(harness.queue.queuedIDs == ids)
        #expect(harness.queue.droppedCounts.isEmpty)

        let renewed = EventUploader.Installation(
            installationID: "inst-1", secret: InstallationSecret("tdg_ins_" + String(repeating: "r", count: 43))!)
        harness.installation.withLock { $0 = renewed }
        let resumed = await harness.uploader.flush()
        #expect(resumed.error == nil)
        #expect(resumed.accepted == 3)
        #expect(harness.transport.requests.last?.header("X-Tidings-Installation-Secret") == renewed.secret.value)
    }

    /// Events recorded under an older installation id cannot be proven any more: they go out with the current
    /// installation's batch, the server answers `installation_mismatch` for each, and they are dropped, counted.
    @Test func eventsOfAnOlderInstallationAreDroppedWhenTheServerRefusesThem() async throws {
        let harness = UploadHarness(script: [])
        let old = TidingsEvent(
            type: .init("open"), occurredAt: harness.clock.now.millisecondsSince1970, installationID: "inst-0",
            messageID: "msg-1")
        harness.queue.enqueue(old)
        let current = harness.enqueue(1)
        harness.transport.enqueue(
            .respond(
                status: 200,
                body: UploadFixtures.receipts([
                    [
                        "event_id": .string(old.eventID.uuidString.lowercased()), "status": "rejected",
                        "error": ["code": "installation_mismatch", "field": "installation_id", "message": "x"],
                    ],
                    ["event_id": .string(current[0].uuidString.lowercased()), "status": "accepted"],
                ])))
        let summary = await harness.uploader.flush()
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 1)
        #expect(summary.remaining == 0)
        #expect(harness.queue.droppedCounts == ["rejected:installation_mismatch": 1])
    }

    @Test func theStoredSourceReadsTheSecretKeptForTheCurrentIDOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-source-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileSecretStore(directory: directory)
        let first = InstallationIdentity(installationID: UUID())
        let identity = LockedBox(first)
        let source = EventUploader.InstallationSource.stored(identity: { identity.withLock { $0 } }, secrets: store)
        #expect(source.current() == nil)

        try store.setSecret(UploadFixtures.installation.secret, for: first.installationID)
        #expect(
            source.current()
                == EventUploader.Installation(
                    installationID: first.installationID, secret: UploadFixtures.installation.secret))
        // After a reset the old secret does not go out with the new id.
        identity.withLock { $0 = InstallationIdentity(installationID: UUID()) }
        #expect(source.current() == nil)
    }
}
