import Foundation
import Testing
import TidingsModel

@testable import TidingsSQLite

/// Writes from many threads committed together: each caller gets its own result, a failing write (or a
/// write whose commit fails) is undone alone, and nothing returns before its transaction has committed.
@Suite struct GroupCommitTests {
    struct Refused: Error, Equatable {
        var number: Int
    }

    func makeDatabase() throws -> (SQLiteDatabase, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("db.sqlite").path)
        try database.write { try $0.execute("CREATE TABLE rows (number INTEGER PRIMARY KEY, note TEXT)") }
        return (database, directory)
    }

    @Test func concurrentWritesEachGetTheirOwnResultAndFailuresAreUndoneAlone() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writers = 8
        let perWriter = 200
        let outcomes = LockedBox([Int: Result<Int, Refused>]())
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for step in 0..<perWriter {
                let number = writer * perWriter + step
                let outcome: Result<Int, Refused>
                do {
                    outcome = .success(
                        try database.groupWrite { connection in
                            try connection.run(
                                "INSERT INTO rows (number, note) VALUES (?1, ?2)",
                                [.integer(Int64(number)), .text("a")])
                            // A second statement, so that undoing the write means undoing two changes.
                            try connection.run(
                                "UPDATE rows SET note = 'b' WHERE number = ?1", [.integer(Int64(number))])
                            if number % 7 == 0 { throw Refused(number: number) }
                            return number * 2
                        })
                } catch let refused as Refused {
                    outcome = .failure(refused)
                } catch {
                    Issue.record("unexpected \(error)")
                    outcome = .failure(Refused(number: -1))
                }
                outcomes.withLock { $0[number] = outcome }
            }
        }
        let total = writers * perWriter
        let stored = try database.read { connection in
            try connection.query("SELECT number, note FROM rows ORDER BY number") { row in
                (row.int(at: 0), row.text(at: 1))
            }
        }
        #expect(stored.map(\.0) == (0..<total).filter { $0 % 7 != 0 })
        #expect(stored.allSatisfy { $0.1 == "b" })
        for number in 0..<total {
            let outcome = outcomes.withLock { $0[number] }
            if number % 7 == 0 {
                #expect(outcome == .failure(Refused(number: number)))
            } else {
                #expect(outcome == .success(number * 2))
            }
        }
    }

    /// Threads of their own (GCD would run about one per core): every caller must be woken, for its result
    /// or to lead the next group, however the hand-overs interleave.
    @Test func thirtyTwoThreadsAtOnceAllFinishWithTheirOwnResults() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (threads, perThread) = (32, 100)
        let results = LockedBox([Int: Int]())
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread {
                defer { finished.leave() }
                for step in 0..<perThread {
                    let number = thread * perThread + step
                    let doubled = try? database.groupWrite { connection in
                        try connection.run(
                            "INSERT INTO rows (number, note) VALUES (?1, 'a')", [.integer(Int64(number))])
                        return number * 2
                    }
                    results.withLock { $0[number] = doubled }
                }
            }.start()
        }
        // A lost wake-up leaves a caller waiting for ever: bounded, so the test fails instead of hanging.
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let total = threads * perThread
        #expect(results.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<total).map { ($0, $0 * 2) }))
        let stored = try database.read { try $0.scalar("SELECT COUNT(*) FROM rows")?.integerValue }
        #expect(stored == Int64(total))
    }

    @Test func aWriteSeesTheWritesBeforeItInTheSameGroup() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<100 {
                _ = try? database.groupWrite { connection in
                    let next = (try connection.scalar("SELECT COALESCE(MAX(number), 0) + 1 FROM rows")?.integerValue)!
                    try connection.run("INSERT INTO rows (number) VALUES (?1)", [.integer(next)])
                }
            }
        }
        let count = try database.read { try $0.scalar("SELECT COUNT(*) FROM rows")?.integerValue }
        let maximum = try database.read { try $0.scalar("SELECT MAX(number) FROM rows")?.integerValue }
        #expect(count == 400)
        #expect(maximum == 400)
    }

    @Test func aWriteWhoseCommitFailsIsUndoneAloneAndTheRestOfItsGroupCommits() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        try database.write { connection in
            try connection.execute(
                """
                CREATE TABLE parents (id INTEGER PRIMARY KEY);
                CREATE TABLE children (id INTEGER PRIMARY KEY,
                    parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
        let runs = LockedBox([Int]())
        func insert(_ number: Int64, orphan: Bool = false) -> GroupedWrite {
            GroupedWrite { connection in
                runs.withLock { $0.append(Int(number)) }
                _ = try? connection.run("INSERT INTO rows (number) VALUES (?1)", [.integer(number)])
                // A deferred foreign key is only checked at COMMIT, so it is the commit that fails.
                if orphan { _ = try? connection.run("INSERT INTO children (id, parent) VALUES (1, 42)") }
                return true
            }
        }
        let errors = database.commitGroup([insert(1), insert(2, orphan: true), insert(3)])
        #expect(errors.map { $0 == nil } == [true, false, true])
        #expect(errors[1] is SQLiteError)
        // Once together (rolled back at COMMIT), then each alone.
        #expect(runs.withLock { $0 } == [1, 2, 3, 1, 2, 3])
        let stored = try database.read { try $0.query("SELECT number FROM rows ORDER BY number") { $0.int(at: 0) } }
        #expect(stored == [1, 3])
        #expect(try database.read { try $0.scalar("SELECT COUNT(*) FROM children")?.integerValue } == 0)
    }

    @Test func aGroupWithoutFailuresRunsEachWriteOnceInOneTransaction() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let runs = LockedBox(0)
        let writes = (1...5).map { number in
            GroupedWrite { connection in
                runs.withLock { $0 += 1 }
                // Inside one transaction the earlier writes are visible to the later ones.
                let count = try? connection.scalar("SELECT COUNT(*) FROM rows")?.integerValue
                _ = try? connection.run(
                    "INSERT INTO rows (number, note) VALUES (?1, ?2)",
                    [.integer(Int64(number)), .text("\(count ?? -1)")])
                return true
            }
        }
        #expect(database.commitGroup(writes).allSatisfy { $0 == nil })
        #expect(runs.withLock { $0 } == 5)
        let notes = try database.read { try $0.query("SELECT note FROM rows ORDER BY number") { $0.text(at: 0) } }
        #expect(notes == ["0", "1", "2", "3", "4"])
    }

    @Test func aFailedCommitFailsEveryWriteOfTheGroupAndAppliesNothing() throws {
        let (database, directory) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A deferred foreign key is only checked at COMMIT, so the commit itself fails.
        try database.write { connection in
            try connection.execute(
                """
                CREATE TABLE parents (id INTEGER PRIMARY KEY);
                CREATE TABLE children (id INTEGER PRIMARY KEY,
                    parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
        #expect(throws: SQLiteError.self) {
            try database.groupWrite { connection in
                try connection.run("INSERT INTO rows (number) VALUES (1)")
                try connection.run("INSERT INTO children (id, parent) VALUES (1, 42)")
            }
        }
        let rows = try database.read { try $0.scalar("SELECT COUNT(*) FROM rows")?.integerValue }
        #expect(rows == 0)
        // The connection is usable again afterwards.
        try database.groupWrite { try $0.run("INSERT INTO rows (number) VALUES (2)") }
        #expect(try database.read { try $0.scalar("SELECT COUNT(*) FROM rows")?.integerValue } == 1)
    }
}
