extension AudienceExpression {
    /// The names of the segments `text` refers to (`segment:NAME`), in order of appearance; empty for text that
    /// does not lex.
    public static func segmentNames(in text: String) -> [String] {
        guard let tokens = try? AudienceLexer.tokens(in: text) else { return [] }
        var names: [String] = []
        for index in tokens.indices.dropLast(2) {
            guard case .word(let word) = tokens[index].kind, word.lowercased() == "segment",
                tokens[index + 1].kind == .colon || tokens[index + 1].kind == .comparison(.equal)
            else { continue }
            switch tokens[index + 2].kind {
            case .word(let name), .string(let name): names.append(name)
            default: break
            }
        }
        return names
    }
}
