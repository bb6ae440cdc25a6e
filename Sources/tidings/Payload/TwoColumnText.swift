/// Rows of `label  value` with every value starting in the same column, in blank-line separated sections.
///
/// ```
/// Dialect     moengage
/// Alert
///   Title     Sale
/// ```
struct TwoColumnText {
    private enum Line {
        case row(indent: Int, label: String, value: String)
        case blank
    }

    private var lines: [Line] = []
    /// Labels are padded to at least this width, so that short reports line up like long ones.
    var minimumLabelWidth: Int

    init(minimumLabelWidth: Int = 0) {
        self.minimumLabelWidth = minimumLabelWidth
    }

    /// A row at the top level.
    mutating func row(_ label: String, _ value: String) {
        lines.append(.row(indent: 0, label: label, value: value))
    }

    /// A row under the last heading.
    mutating func subrow(_ label: String, _ value: String) {
        lines.append(.row(indent: 2, label: label, value: value))
    }

    /// Starts a new section.
    mutating func blank() {
        if case .row? = lines.last { lines.append(.blank) }
    }

    /// The text, ending in a newline; values that span lines are shown with `\n` escaped.
    func render() -> String {
        let width = lines.reduce(minimumLabelWidth) { width, line in
            guard case .row(let indent, let label, _) = line else { return width }
            return max(width, indent + label.count)
        }
        var text = ""
        for line in lines {
            switch line {
            case .blank:
                text += "\n"
            case .row(let indent, let label, let value):
                let left = String(repeating: " ", count: indent) + label
                let shown = value.replacingOccurrences(of: "\n", with: "\\n")
                text += shown.isEmpty ? left + "\n" : left.padding(toLength: width + 2) + shown + "\n"
            }
        }
        return text
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
