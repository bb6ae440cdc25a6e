import Foundation
import Testing
import TidingsModel

@Suite struct PayloadLinterTests {
    let linter = PayloadLinter()

    @Test(arguments: LintCase.all)
    func ruleFiresOnTheBadPayloadOnly(_ lintCase: LintCase) throws {
        let rule = try #require(PayloadLintRule.catalog.first { $0.code == lintCase.code })
        let bad = linter.lint(lintCase.bad).filter { $0.code == lintCase.code }
        #expect(!bad.isEmpty, "\(lintCase.code) did not fire on the bad payload")
        #expect(bad.allSatisfy { $0.severity == rule.severity })
        #expect(bad.allSatisfy { !$0.message.isEmpty && !$0.message.contains("\n") })
        let good = linter.lint(lintCase.good).filter { $0.code == lintCase.code }
        #expect(good.isEmpty, "\(lintCase.code) fired on the good payload: \(good.map(\.message))")
    }

    @Test func everyRuleHasACase() {
        let tested = Set(LintCase.all.map(\.code))
        let missing = PayloadLintRule.catalog.map(\.code).filter { !tested.contains($0) }
        #expect(missing.isEmpty, "rules without a table case: \(missing)")
    }

    @Test func codesAreUniqueAndSnakeCase() {
        let codes = PayloadLintRule.catalog.map(\.code.rawValue)
        #expect(Set(codes).count == codes.count)
        for code in codes {
            #expect(code.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code) is not snake_case")
        }
    }

    @Test func everyRuleIsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../docs/lint-rules.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for rule in PayloadLintRule.catalog {
            #expect(text.contains("`\(rule.code.rawValue)`"), "docs/lint-rules.md does not list \(rule.code)")
        }
    }

    @Test func aCleanAlertPushHasNoFindings() {
        #expect(linter.lint(LintCase.input()).isEmpty)
    }

    @Test func sizeMessageNamesTheSizeAndTheLimit() throws {
        let warning = try #require(linter.lint(LintCase.input(size: 4500)).first)
        #expect(warning.code == "payload_too_large")
        #expect(warning.severity == .error)
        #expect(warning.message.contains("4500 bytes"))
        #expect(warning.message.contains("4096 bytes"))
        let voip = try #require(linter.lint(LintCase.input(size: 6000, voip: true)).first)
        #expect(voip.message.contains("5120 bytes"))
    }

    @Test func sizeMessageSuggestsCompactingWhenThatFits() throws {
        var input = LintCase.input(size: 4200)
        input.compactSizeInBytes = 3900
        let compactable = try #require(linter.lint(input).first)
        #expect(compactable.message.contains("without whitespace (3900 bytes compact)"))
        input.compactSizeInBytes = 4100
        let tooBig = try #require(linter.lint(input).first)
        #expect(tooBig.message.contains("shorten the text"))
    }

    @Test func unknownApsKeysAreListedSorted() throws {
        let input = LintCase.input(json: #"{"aps":{"alert":"Hi","zeta":1,"alpha":2}}"#)
        let warning = try #require(linter.lint(input).first { $0.code == "unknown_aps_key" })
        #expect(warning.message.contains("alpha, zeta"))
        #expect(warning.path == "aps")
    }

    @Test func wrongTypeNamesTheKeyAndWhatWasFound() throws {
        let input = LintCase.input(json: #"{"aps":{"alert":"Hi","badge":"3","sound":{"volume":"loud"}}}"#)
        let warnings = linter.lint(input).filter { $0.code == "aps_wrong_type" }
        #expect(Set(warnings.compactMap(\.path)) == ["aps.badge", "aps.sound.volume"])
        #expect(warnings.contains { $0.message.contains(#"found string "3""#) })
    }

    @Test func findingsAreOrderedErrorsFirst() {
        let input = LintCase.input(
            LintCase.payload(messageID: nil, badge: .increment(1)),
            json: #"{"aps":{"alert":"Hi","extra":1}}"#, size: 5000)
        let severities = linter.lint(input).map(\.severity)
        #expect(severities == severities.sorted())
        #expect(severities.first == .error)
        #expect(severities.contains(.warning) && severities.contains(.info))
    }

    @Test func everyButtonProblemIsReportedSeparately() {
        let payload = LintCase.payload(
            mutableContent: true,
            buttons: [
                PushButton(id: "a", title: "A", action: .deepLink(url: "no scheme")),
                PushButton(id: "b", title: "B", action: .web(url: "ftp://files.example/x", inApp: false)),
                PushButton(id: "c", title: "C", action: .web(url: "https://ok.example", inApp: false)),
            ])
        let warnings = linter.lint(LintCase.input(payload))
        #expect(warnings.filter { $0.code == "invalid_action_url" }.map(\.message).contains { $0.contains("'a'") })
        #expect(warnings.filter { $0.code == "web_url_not_http" }.map(\.message).contains { $0.contains("ftp") })
        #expect(!warnings.contains { $0.message.contains("'c'") })
    }

    static let oddValues: [JSONValue] = [
        nil, true, 0, -7, 1.5, "", "x", [], ["a", 1], [:], ["name": 1, "volume": "loud"],
    ]

    /// Every documented `aps` key with every kind of JSON value: the payload decodes and lints without trapping,
    /// and every message stays one line.
    @Test(arguments: PushPayload.documentedAPSKeys.sorted())
    func anyValueUnderAnyApsKeyLints(_ key: String) throws {
        for value in Self.oddValues {
            for alert in [nil, "Hi", ["titel": 1]] as [JSONValue?] {
                var aps: [String: JSONValue] = [key: value]
                if let alert, key != "alert" { aps["alert"] = alert }
                let json: JSONValue = ["aps": .object(aps), "ab": ["c": value]]
                let payload = try PushPayload(json: json)
                let warnings = linter.lint(PayloadLintInput(payload: payload, json: json, sizeInBytes: 10, now: Date()))
                #expect(warnings.allSatisfy { !$0.message.isEmpty && !$0.message.contains("\n") })
            }
        }
    }

    @Test func customRulesRunAlongTheCatalog() {
        let rule = PayloadLintRule("no_campaign", .info, "a send without a campaign id") { input in
            input.payload.campaignID == nil ? [.init("no campaign id")] : []
        }
        let linter = PayloadLinter(rules: PayloadLintRule.catalog + [rule])
        #expect(linter.lint(LintCase.input()).map(\.code) == ["no_campaign"])
    }
}
