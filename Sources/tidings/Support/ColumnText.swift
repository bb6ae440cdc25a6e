/// A table for people: a header row, then rows, every column padded to its widest cell.
///
/// ```
/// STAGE      COUNT  INSTALLATIONS
/// delivered      2              2
/// ```
///
/// Numeric columns are right-aligned so digits line up; the last column is not padded, so lines carry no
/// trailing spaces.
struct ColumnText {
    enum Alignment {
        case left
        case right
    }

    private let headers: [String]
    private let alignments: [Alignment]
    private var rows: [[String]] = []

    /// A table with `columns` as (header, alignment) pairs.
    init(_ columns: [(header: String, alignment: Alignment)]) {
        headers = columns.map(\.header)
        alignments = columns.map(\.alignment)
    }

    /// Appends a row; missing cells are blank, extra cells are dropped, line breaks are shown as `\n`.
    mutating func row(_ cells: [String]) {
        rows.append(
            headers.indices.map { index in
                index < cells.count ? cells[index].replacingOccurrences(of: "\n", with: "\\n") : ""
            })
    }

    var isEmpty: Bool { rows.isEmpty }

    /// The table, every line ending in a newline.
    func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for cells in all {
            var line = ""
            for (column, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let isLast = column == cells.count - 1
                if column > 0 { line += "  " }
                switch alignments[column] {
                case .right: line += padding + cell
                case .left: line += isLast ? cell : cell + padding
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }
}
