import TidingsModel
import TidingsStore

/// One caller's installation upsert waiting for its group (``PostgresStore/upserts``, a ``GroupCommitter``):
/// concurrent upserts are written in one transaction, so a busy server pays for one commit (one WAL flush)
/// and two round trips per group instead of per request.
final class PostgresUpsert: GroupCommitMember, @unchecked Sendable {
    // @unchecked: `prepare` and `outcome` are used by the group's leader while the caller waits in
    // `GroupCommitter.submit`, which returns only after the leader is done with them.
    let appID: String
    let installationID: String
    let now: Int64
    /// The caller's decision; dropped once the group is written, because the caller lends it only for the
    /// duration of its call.
    private(set) var prepare: ((Installation?) throws -> InstallationUpdate)?
    /// Set by the group's writer: what the caller returns or throws.
    var outcome: Result<(installation: Installation, created: Bool), any Error>?
    /// Hands the outcome on, for an upsert that nobody waits for.
    var finished: (@Sendable (Result<(installation: Installation, created: Bool), any Error>) -> Void)?

    init(
        appID: String, installationID: String, now: Int64,
        prepare: @escaping (Installation?) throws -> InstallationUpdate
    ) {
        self.appID = appID
        self.installationID = installationID
        self.now = now
        self.prepare = prepare
    }

    override func groupWritten() { prepare = nil }

    override func groupFinished() {
        let finished = self.finished
        self.finished = nil
        finished?(outcome ?? .failure(Self.unwritten))
    }

    static let unwritten = PostgresError(code: .server, message: "the installation upsert was not written")
    /// An installation the group found absent was created by another transaction before the group inserted it:
    /// the group is rolled back and written again on what that transaction wrote (SQLSTATE 40001, a
    /// serialization failure, asks for exactly that).
    static let createdMeanwhile = PostgresError(
        code: .server, message: "an installation was created by another transaction while its group was written",
        sqlState: "40001")
}
