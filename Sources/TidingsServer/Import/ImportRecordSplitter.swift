/// Finds where records end in bytes that start at a record's start: after each line feed, except, in CSV,
/// one inside a quoted field (a value may span lines). Shared by `tidings import`, which cuts the file into
/// parts of whole records, and the route, which reads each part's records.
public struct ImportRecordSplitter: Sendable {
    public let format: ImportFormat

    public init(format: ImportFormat) { self.format = format }

    /// The offset after each complete record of `bytes`; bytes after the last are an unfinished record.
    public func recordEnds(_ bytes: some Collection<UInt8>) -> [Int] {
        var ends: [Int] = []
        var quoted = false
        var offset = 0
        for byte in bytes {
            offset += 1
            if byte == UInt8(ascii: "\""), format == .csv {
                // A doubled quote inside a quoted field toggles twice: the field stays quoted.
                quoted.toggle()
            } else if byte == UInt8(ascii: "\n"), !quoted {
                ends.append(offset)
            }
        }
        return ends
    }

    /// The records of `bytes` without their line ends; a last record without a line feed counts. Blank lines
    /// are dropped: they are no rows.
    public func records(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var records: [ArraySlice<UInt8>] = []
        var start = 0
        var ends = recordEnds(bytes)
        if ends.last != bytes.count, start < bytes.count { ends.append(bytes.count) }
        for end in ends {
            var stop = end
            while stop > start, bytes[stop - 1] == UInt8(ascii: "\n") || bytes[stop - 1] == UInt8(ascii: "\r") {
                stop -= 1
            }
            if stop > start { records.append(bytes[start..<stop]) }
            start = end
        }
        return records
    }
}
