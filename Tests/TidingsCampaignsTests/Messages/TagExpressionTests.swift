import Testing
import TidingsCampaigns

@Suite struct TagExpressionTests {
    @Test(arguments: [
        ("a OR b AND c", "(a OR (b AND c))"),
        ("a AND b OR c", "((a AND b) OR c)"),
        ("NOT a AND b", "((NOT a) AND b)"),
        ("NOT NOT a", "(NOT (NOT a))"),
        ("(vip AND ios) OR NOT churned", "((vip AND ios) OR (NOT churned))"),
        ("vip AND (ios OR android)", "(vip AND (ios OR android))"),
        ("a OR b OR c", "((a OR b) OR c)"),
        ("(a)", "a"),
        ("  spaced   AND\tout ", "(spaced AND out)"),
    ])
    func precedenceNotAndOr(text: String, parsed: String) throws {
        #expect(try TagExpression.parse(text).description == parsed)
    }

    @Test func evaluates() throws {
        let expression = try TagExpression.parse("(vip AND ios) OR NOT churned")
        #expect(expression.matches(["vip", "ios", "churned"]))
        #expect(!expression.matches(["vip", "churned"]))
        #expect(expression.matches([]))
        #expect(expression.tags == ["vip", "ios", "churned"])
        #expect(try TagExpression.parse("a OR b AND c").matches(["a"]))
        #expect(!(try TagExpression.parse("(a OR b) AND c").matches(["a"])))
    }

    @Test func lowerCaseWordsAreTags() throws {
        #expect(try TagExpression.parse("and").matches(["and"]))
    }

    @Test(arguments: [
        ("", TagExpressionError.Code.empty, 0),
        ("   ", .empty, 0),
        ("a AND", .unexpectedEnd, 5),
        ("AND a", .unexpectedToken, 0),
        ("a b", .unexpectedToken, 2),
        ("(a OR b", .unbalancedParenthesis, 0),
        ("a OR b)", .unbalancedParenthesis, 6),
        ("a AND ()", .unexpectedToken, 7),
        ("NOT", .unexpectedEnd, 3),
    ])
    func errorsCarryCodeAndPosition(text: String, code: TagExpressionError.Code, position: Int) {
        let error = #expect(throws: TagExpressionError.self) { try TagExpression.parse(text) }
        #expect(error?.code == code)
        #expect(error?.position == position)
    }

    @Test func limitsLengthAndDepth() {
        let long = String(repeating: "a OR ", count: 1000) + "a"
        #expect((#expect(throws: TagExpressionError.self) { try TagExpression.parse(long) })?.code == .tooLong)
        let deep = String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100)
        #expect((#expect(throws: TagExpressionError.self) { try TagExpression.parse(deep) })?.code == .tooDeep)
    }
}
