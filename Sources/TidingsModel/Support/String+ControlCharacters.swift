extension String {
    /// Whether the string holds a control character (Unicode's category Cc: CR, LF, tab, NUL and the other C0
    /// controls, DEL, the C1 controls). Text a caller chooses that travels in an HTTP header field must not: a
    /// line break would end the field and start another of the caller's making.
    public var containsControlCharacters: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
