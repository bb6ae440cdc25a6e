import Testing
import TidingsModel

@Suite struct StringControlCharactersTests {
    @Test(
        "C0 controls, DEL and C1 controls count, wherever they are",
        arguments: ["a\rb", "line\n", "\ttab", "nul\u{0}", "del\u{7F}", "next line\u{85}", "\u{1B}[31m"])
    func controlCharactersAreFound(text: String) {
        #expect(text.containsControlCharacters)
    }

    @Test(
        "letters, punctuation, spaces and emoji in any script do not",
        arguments: ["", "sale-2026", "soldes d'été: 50 %", "セール", "🎉 party", "a b\u{00A0}c"])
    func otherTextIsClean(text: String) {
        #expect(!text.containsControlCharacters)
    }
}
