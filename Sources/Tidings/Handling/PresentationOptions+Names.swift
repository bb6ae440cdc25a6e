extension PresentationOptions {
    /// Each option's name, in the order iOS applies them: `banner`, `list`, `sound`, `badge`.
    public var names: [String] {
        let named: [(PresentationOptions, String)] = [
            (.banner, "banner"), (.list, "list"), (.sound, "sound"), (.badge, "badge"),
        ]
        return named.filter { contains($0.0) }.map(\.1)
    }
}
