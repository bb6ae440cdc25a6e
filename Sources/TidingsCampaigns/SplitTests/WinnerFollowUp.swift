import TidingsModel

/// What a split test's follow-up leaves out: the people of the test share and of the control group, drawn as
/// the test drew them (``WinnerRule/isTested(splitKey:subject:)``, ``VariantAssignment``), so the winner goes
/// to the rest of the audience only.
public struct WinnerFollowUp: Sendable, Hashable {
    /// The test's message.
    public var parentID: String
    /// The test's split key: its campaign id, else its message id.
    var splitKey: String
    var control: Double
    var testShare: Double

    func excludes(_ subject: VariantAssignment.Subject) -> Bool {
        WinnerRule.isTested(share: testShare, splitKey: splitKey, subject: subject)
            || VariantAssignment.point(splitKey: splitKey, subject: subject) < control
    }

    var json: JSONValue {
        [
            "parent": .string(parentID), "split_key": .string(splitKey), "control": .double(control),
            "test_share": .double(testShare),
        ]
    }

    static func decode(_ value: JSONValue?) -> WinnerFollowUp? {
        guard let value, let parent = value["parent"]?.stringValue, let key = value["split_key"]?.stringValue,
            let control = WinnerRule.number(value["control"]), let share = WinnerRule.number(value["test_share"])
        else { return nil }
        return WinnerFollowUp(parentID: parent, splitKey: key, control: control, testShare: share)
    }
}
