import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// The upsert's completion form, used by the API so that no network thread waits for a group commit: every
/// caller hears once, with the same outcome the waiting form would give, on both backends.
extension StoreTests {
    typealias UpsertOutcome = Result<(installation: Installation, created: Bool), any Error>

    /// Collects the completions of upserts made from many threads at once.
    final class UpsertOutcomes: @unchecked Sendable {
        // @unchecked: `byID` and `calls` are guarded by `lock`.
        private let lock = NSLock()
        private var byID: [String: UpsertOutcome] = [:]
        private var calls = 0
        let finished = DispatchGroup()

        func record(_ id: String, _ outcome: UpsertOutcome) {
            lock.withLock {
                byID[id] = outcome
                calls += 1
            }
            finished.leave()
        }

        var all: (byID: [String: UpsertOutcome], calls: Int) { lock.withLock { (byID, calls) } }
    }

    /// 16 threads × 8 upserts at once, one of every eight refused by its `prepare`, and one taking the token
    /// of an installation that already holds it.
    @Test(arguments: StoreBackend.allCases)
    func upsertsThatDoNotWaitEachHearOnceWithTheirOwnOutcome(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var holder = InstallationUpdate()
        holder.apnsToken = .set(token(200))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "holder", update: holder, now: Self.now)
        let outcomes = UpsertOutcomes()
        let threads = DispatchGroup()
        for thread in 0..<16 {
            threads.enter()
            Thread {
                defer { threads.leave() }
                for step in 0..<8 {
                    let number = thread * 8 + step
                    let id = "i-\(number)"
                    outcomes.finished.enter()
                    store.upsertInstallation(
                        appID: "app_a", installationID: id, now: Self.now + 1,
                        prepare: { existing in
                            if step == 7 { throw StoreError(code: .conflict, message: "refused \(id)") }
                            var update = InstallationUpdate()
                            update.apnsToken = .set(number == 0 ? token(200) : token(number))
                            update.userID = .set("user-\(number)")
                            return update
                        },
                        completion: { outcomes.record(id, $0) })
                }
            }.start()
        }
        #expect(threads.wait(timeout: .now() + 30) == .success)
        // A lost completion leaves its caller unanswered for ever: bounded, so the test fails instead of hanging.
        #expect(outcomes.finished.wait(timeout: .now() + 30) == .success)
        let (byID, calls) = outcomes.all
        #expect(calls == 128, "each completion is called exactly once")
        for number in 0..<128 {
            let id = "i-\(number)"
            let stored = try store.installation(appID: "app_a", installationID: id)
            switch byID[id] {
            case .success(let (installation, created)):
                #expect(number % 8 != 7)
                #expect(created)
                #expect(installation.userID == "user-\(number)")
                #expect(stored?.apnsToken == installation.apnsToken)
            case .failure(let error):
                #expect(number % 8 == 7)
                #expect((error as? StoreError)?.message == "refused \(id)")
                #expect(stored == nil, "a refused upsert writes nothing")
            case nil:
                Issue.record("no outcome for \(id)")
            }
        }
        #expect(try store.installation(appID: "app_a", installationID: "holder")?.apnsToken == nil)
        #expect(try store.installation(appID: "app_a", installationID: "i-0")?.apnsToken == token(200))
    }
}
