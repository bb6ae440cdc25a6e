import Foundation
import Testing
import TidingsModel

/// `tidings journeys` against a real tidingsd API over loopback: a journey validated, created, listed, shown step
/// by step, started, paused, updated and archived; an invalid definition refused with every problem's path.
@Suite struct JourneysCommandTests {
    /// docs/journeys.md's abandoned cart, shortened: wait, remind, then wait for a purchase.
    static let cart: JSONValue = [
        "name": "Abandoned cart",
        "trigger": ["event": "add_to_cart"],
        "entry": ["rule": "once_every", "days": 7],
        "exit": [["event": "purchase"]],
        "steps": [
            ["id": "pause", "type": "wait", "duration": 3600],
            ["id": "remind", "type": "send", "message": ["content": ["title": "Still thinking about it?"]]],
            [
                "id": "bought", "type": "wait", "for_event": "purchase", "timeout": 86400, "on_event": "thanks",
                "on_timeout": "end",
            ],
            ["id": "thanks", "type": "send", "message": ["content": ["title": "Thank you!"]]],
            ["id": "end", "type": "exit"],
        ],
    ]

    /// ``cart`` with the members in `changes` replaced.
    static func cart(with changes: [String: JSONValue]) -> JSONValue {
        .object((cart.objectValue ?? [:]).merging(changes) { $1 })
    }

    /// `definition` written as a file in the backend's directory; answers its path.
    static func write(_ definition: JSONValue, named name: String, in backend: APIBackend) throws -> String {
        let url = backend.directory.appendingPathComponent(name)
        try Data(try definition.serialized()).write(to: url)
        return url.path
    }

    @Test func aJourneyIsValidatedCreatedShownAndMovedThroughItsStates() async throws {
        let backend = try APIBackend(sending: false)
        let file = try Self.write(Self.cart, named: "cart.json", in: backend)

        let valid = try await backend.tidingsConnected(["journeys", "validate", file])
        #expect(valid.status == 0, "\(valid.standardError)")
        #expect(valid.standardOutput == "valid\n")
        #expect(try await backend.call("GET", "/v1/journeys", key: backend.serverKey).json["journeys"] == [])

        let created = try await backend.tidingsConnected(["journeys", "create", file, "--json"])
        #expect(created.status == 0, "\(created.standardError)")
        let answer = try JSONValue.parse(created.standardOutput)
        let id = try #require(answer["journey_id"]?.stringValue)
        #expect(answer["version"] == 1)
        #expect(answer["state"] == "draft")

        let list = try await backend.tidingsConnected(["journeys", "list"])
        #expect(list.status == 0, "\(list.standardError)")
        let listLines = list.standardOutput.split(separator: "\n").map(String.init)
        #expect(listLines.first?.hasPrefix("JOURNEY") == true)
        let row = try #require(listLines.first { $0.hasPrefix(id) })
        #expect(row.contains("Abandoned cart") && row.contains("draft") && row.contains("event add_to_cart"))
        #expect(listLines.last == "1 journey(s)")

        let shown = try await backend.tidingsConnected(["journeys", "show", id])
        #expect(shown.status == 0, "\(shown.standardError)")
        let lines = shown.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Name     Abandoned cart"), "\(shown.standardOutput)")
        #expect(lines.contains("State    draft"))
        #expect(lines.contains("Trigger  event add_to_cart"))
        #expect(lines.contains("Entry    at most once every 7 days"))
        #expect(lines.contains("Exit on  purchase"))
        let header = try #require(lines.first { $0.hasPrefix("STEP") })
        #expect(
            header.split(separator: " ").map(String.init) == [
                "STEP", "TYPE", "WHAT", "ENTERED", "WAITING", "SENT", "SKIPPED", "DELIVERED", "OPENED", "CONVERTED",
                "EXITED",
            ] as [String])
        // Each step in the definition's order, with what it does, where it goes and its (still zero) numbers.
        let steps = lines.filter { line in
            ["pause ", "remind ", "bought ", "thanks ", "end "].contains { line.hasPrefix($0) }
        }
        #expect(steps.count == 5, "\(shown.standardOutput)")
        #expect(steps.count == 5 && steps[0].contains("wait") && steps[0].contains("1 h → remind"))
        #expect(steps.count == 5 && steps[1].contains("\"Still thinking about it?\" → bought"))
        #expect(steps.count == 5 && steps[2].contains("event → thanks, timeout → end"))
        let numbers = steps.map { $0.split(separator: " ").suffix(8).map(String.init) }
        #expect(numbers.count == 5 && numbers[1] == Array(repeating: "0", count: 8), "\(shown.standardOutput)")
        // A wait has no send numbers: entered, waiting and exited only.
        let waitTokens = steps.first.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(waitTokens.drop { $0 != "remind" }.dropFirst() == ["0", "0", "0"], "\(shown.standardOutput)")
        #expect(lines.last == "No one has exited.")

        // draft → active → paused → active; a second start is refused with the server's 409.
        for (action, state) in [("start", "active"), ("pause", "paused"), ("start", "active")] {
            let moved = try await backend.tidingsConnected(["journeys", action, id])
            #expect(moved.status == 0, "\(action): \(moved.standardError)")
            #expect(moved.standardOutput == "Journey \(id) is \(state)\n")
            let stored = try await backend.call("GET", "/v1/journeys/\(id)", key: backend.serverKey)
            #expect(stored.json["state"] == .string(state))
        }
        let again = try await backend.tidingsConnected(["journeys", "start", id])
        #expect(again.status == 1)
        #expect(again.standardError.contains("409 invalid_state"), "\(again.standardError)")

        // An edit is a new version; the list and the journey say so.
        let edited = Self.cart(with: ["name": "Abandoned cart, kinder"])
        let editedFile = try Self.write(edited, named: "cart-2.json", in: backend)
        let updated = try await backend.tidingsConnected(["journeys", "update", id, editedFile])
        #expect(updated.status == 0, "\(updated.standardError)")
        #expect(updated.standardOutput == "Updated journey \(id): version 2, active\n")
        let json = try JSONValue.parse(
            try await backend.tidingsConnected(["journeys", "show", id, "--json"]).standardOutput)
        #expect(json["version"] == 2)
        #expect(json["name"] == "Abandoned cart, kinder")
        #expect(json["steps"]?.arrayValue?.count == 5)

        let archived = try await backend.tidingsConnected(["journeys", "archive", id, "--json"])
        #expect(archived.status == 0, "\(archived.standardError)")
        #expect(try JSONValue.parse(archived.standardOutput)["state"] == "archived")
        let restart = try await backend.tidingsConnected(["journeys", "start", id])
        #expect(restart.status == 1 && restart.standardError.contains("invalid_state"), "\(restart.standardError)")
        await backend.stop()
    }

    @Test func showCountsPeopleAtEachStepAndTheirExitsByReason() async throws {
        let backend = try APIBackend()
        try await backend.register("phone-1", user: "u1")
        try await backend.register("phone-2", user: "u2")
        let quick = Self.cart(with: [
            "entry": ["rule": "every_time"],
            "steps": [
                ["id": "pause", "type": "wait", "duration": 1],
                ["id": "remind", "type": "send", "message": ["content": ["title": "Still thinking about it?"]]],
                ["id": "end", "type": "exit"],
            ],
        ])
        let file = try Self.write(quick, named: "quick.json", in: backend)
        let created = try await backend.tidingsConnected(["journeys", "create", file, "--json"])
        let id = try #require(try JSONValue.parse(created.standardOutput)["journey_id"]?.stringValue)
        #expect(try await backend.tidingsConnected(["journeys", "start", id]).status == 0)

        func emit(_ type: String, user: String) async throws {
            let answer = try await backend.call(
                "POST", "/v1/users/\(user)/events", key: backend.serverKey, ["type": .string(type)])
            #expect(answer.status == 202, "\(answer.json)")
        }
        func step(_ name: String) async throws -> JSONValue {
            try backend.api.journeys.runOnce()
            let shown = try await backend.tidingsConnected(["journeys", "show", id, "--json"])
            return try JSONValue.parse(shown.standardOutput)["steps"]?.arrayValue?.first { $0["id"] == .string(name) }
                ?? .null
        }
        // Both enter and wait; one buys during the wait and leaves there.
        try await emit("add_to_cart", user: "u1")
        try await emit("add_to_cart", user: "u2")
        #expect(try await step("pause")["entered"] == 2)
        #expect(try await step("pause")["waiting"] == 2)
        try await emit("purchase", user: "u2")
        #expect(try await step("pause")["exited"]?["event:purchase"] == 1)
        // After the second, the other is reminded and ends at the exit step.
        try await Task.sleep(for: .milliseconds(1100))
        var remind = try await step("remind")
        for _ in 0..<50 where remind["sent"] != 1 {
            try await Task.sleep(for: .milliseconds(100))
            remind = try await step("remind")
        }
        #expect(remind["entered"] == 1)
        #expect(remind["sent"] == 1, "\(remind)")

        let shown = try await backend.tidingsConnected(["journeys", "show", id])
        #expect(shown.status == 0, "\(shown.standardError)")
        let lines = shown.standardOutput.split(separator: "\n").map(String.init)
        let tokens = { (name: String) in
            lines.first { $0.hasPrefix(name + " ") }.map { $0.split(separator: " ").map(String.init) } ?? []
        }
        #expect(tokens("pause").suffix(3) == ["2", "0", "1"], "\(shown.standardOutput)")
        #expect(tokens("remind").suffix(8) == ["1", "0", "1", "0", "0", "0", "0", "0"], "\(shown.standardOutput)")
        #expect(tokens("end").suffix(3) == ["1", "0", "1"], "\(shown.standardOutput)")
        #expect(lines.contains("People   2 entered, 0 in it, 0 completed, 2 exited"), "\(shown.standardOutput)")
        let exits = Array(lines.drop { !$0.hasPrefix("EXITED BY") })
        #expect(exits.count == 3, "\(shown.standardOutput)")
        #expect(exits.count == 3 && exits[1].split(separator: " ") == ["event:purchase", "1", "pause", "1"])
        #expect(exits.count == 3 && exits[2].split(separator: " ") == ["exit_step", "1", "end", "1"])
        await backend.stop()
    }

    /// A send step that picks its winner shows its split test: where it stands and each arm's numbers.
    @Test func showListsASendStepsSplitTest() async throws {
        let backend = try APIBackend()
        for index in 0..<4 { try await backend.register("phone-\(index)", user: "u\(index)") }
        let tested = Self.cart(with: [
            "entry": ["rule": "every_time"], "exit": [],
            "steps": [
                [
                    "id": "offer", "type": "send",
                    "message": [
                        "variants": [["id": "a", "content": ["title": "A"]], ["id": "b", "content": ["title": "B"]]],
                        "conversion": ["event": "purchase", "within": "1h"],
                        "winner": ["test_share": 0.5, "after": "1h"],
                    ],
                ]
            ],
        ])
        let file = try Self.write(tested, named: "tested.json", in: backend)
        let created = try await backend.tidingsConnected(["journeys", "create", file, "--json"])
        #expect(created.status == 0, "\(created.standardError)")
        let id = try #require(try JSONValue.parse(created.standardOutput)["journey_id"]?.stringValue)
        #expect(try await backend.tidingsConnected(["journeys", "start", id]).status == 0)
        for index in 0..<4 {
            let answer = try await backend.call(
                "POST", "/v1/users/u\(index)/events", key: backend.serverKey, ["type": "add_to_cart"])
            #expect(answer.status == 202, "\(answer.json)")
        }
        try backend.api.journeys.runOnce()

        let shown = try await backend.tidingsConnected(["journeys", "show", id])
        #expect(shown.status == 0, "\(shown.standardError)")
        let lines = shown.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.hasPrefix("Split test at offer (version 1): testing until ") },
            "\(shown.standardOutput)")
        let arms = Array(lines.drop { !$0.hasPrefix("VARIANT") }.prefix(3))
        #expect(
            arms.first?.split(separator: " ") == ["VARIANT", "SENT", "CONVERTED", "RATE"] as [Substring],
            "\(shown.standardOutput)")
        #expect(
            arms.dropFirst().map { $0.split(separator: " ").first } == ["a", "b"] as [Substring?],
            "\(shown.standardOutput)")
        await backend.stop()
    }

    @Test func anInvalidDefinitionListsEveryProblemWithItsPathAndStoresNothing() async throws {
        let backend = try APIBackend(sending: false)
        // A wait of no time, and a send with a field no step has.
        let broken = Self.cart(with: [
            "steps": [
                ["id": "pause", "type": "wait", "duration": 0],
                ["id": "remind", "type": "send", "colour": "red", "message": ["content": ["title": "Hi"]]],
            ]
        ])
        let file = try Self.write(broken, named: "broken.json", in: backend)

        let validated = try await backend.tidingsConnected(["journeys", "validate", file])
        #expect(validated.status == 1)
        #expect(validated.standardOutput.isEmpty)
        let problems = validated.standardError.split(separator: "\n").map(String.init)
        #expect(problems.first?.hasPrefix("tidings: the journey is not valid: ") == true, "\(validated.standardError)")
        #expect(problems.contains { $0.hasPrefix("  steps[0].duration: ") }, "\(validated.standardError)")
        #expect(problems.contains { $0.hasPrefix("  steps[1].colour: ") }, "\(validated.standardError)")

        let json = try await backend.tidingsConnected(["journeys", "validate", file, "--json"])
        #expect(json.status == 1)
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["valid"] == false)
        #expect((answer["errors"]?.arrayValue?.count ?? 0) >= 2)

        for arguments in [["journeys", "create", file], ["journeys", "update", "jrn_missing", file]] {
            let refused = try await backend.tidingsConnected(arguments)
            #expect(refused.status == 1, "\(arguments)")
            #expect(refused.standardError.contains("steps[1].colour"), "\(refused.standardError)")
        }
        #expect(try await backend.call("GET", "/v1/journeys", key: backend.serverKey).json["journeys"] == [])

        let missing = try await backend.tidingsConnected(["journeys", "show", "jrn_missing"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("404"), "\(missing.standardError)")
        await backend.stop()
    }

    @Test func aSegmentTriggerIsShownInWords() async throws {
        let backend = try APIBackend(sending: false)
        let segment = try await backend.call(
            "POST", "/v1/segments", key: backend.serverKey,
            ["name": "lapsed", "expression": "not event app_open within 14d"])
        #expect(segment.status == 201, "\(segment.json)")
        let file = try Self.write(
            Self.cart(with: ["trigger": ["segment": "lapsed", "include_current_members": true]]), named: "lapsed.json",
            in: backend)
        let created = try await backend.tidingsConnected(["journeys", "create", file, "--json"])
        #expect(created.status == 0, "\(created.standardError)")
        let id = try #require(try JSONValue.parse(created.standardOutput)["journey_id"]?.stringValue)
        let shown = try await backend.tidingsConnected(["journeys", "show", id])
        let lines = shown.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Trigger  segment lapsed (current members too)"), "\(shown.standardOutput)")
        let list = try await backend.tidingsConnected(["journeys", "list"])
        #expect(list.standardOutput.contains("segment lapsed"), "\(list.standardOutput)")
    }

    @Test func usageMistakesAreRefusedBeforeAnyRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-journeys-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notJSON = directory.appendingPathComponent("cart.txt")
        try Data("steps: wait".utf8).write(to: notJSON)
        let array = directory.appendingPathComponent("array.json")
        try Data("[]".utf8).write(to: array)
        let large = directory.appendingPathComponent("large.json")
        try Data(repeating: 0x20, count: (1 << 20) + 1).write(to: large)
        // Nothing listens on port 9: a request would fail differently (exit 3).
        let connection = ["--server", "http://127.0.0.1:9", "--key", "tdg_srv_x"]
        let cases: [([String], String)] = [
            (["journeys", "run", "x"], "unknown subcommand 'run'"),
            (["journeys", "show"], "journeys show: give JOURNEY_ID"),
            (["journeys", "list", "extra"], "journeys list: takes no arguments"),
            (["journeys", "update", "jrn_1"], "journeys update: give JOURNEY_ID and FILE"),
            (["journeys", "create", directory.appendingPathComponent("none.json").path], "no such file"),
            (["journeys", "validate", notJSON.path], "is not JSON"),
            (["journeys", "create", array.path], "must hold a JSON object"),
            (["journeys", "validate", large.path], "over the limit of 1048576 bytes"),
        ]
        for (arguments, message) in cases {
            let result = try await TidingsExecutable.run(arguments + connection, environment: ["HOME": "/nonexistent"])
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
        let bare = try await TidingsExecutable.run(["journeys"], environment: ["HOME": "/nonexistent"])
        #expect(bare.status == 2 && bare.standardError.contains("missing subcommand"), "\(bare.standardError)")
        let help = try await TidingsExecutable.run(["journeys", "--help"], environment: ["HOME": "/nonexistent"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("tidings journeys show JOURNEY_ID"))
        let unreachable = try await TidingsExecutable.run(
            ["journeys", "list"] + connection, environment: ["HOME": "/x"])
        #expect(unreachable.status == 3, "\(unreachable.standardError)")
    }
}
