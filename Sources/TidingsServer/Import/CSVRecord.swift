/// One CSV record's fields (RFC 4180): separated by commas, a field in double quotes may hold commas, line
/// breaks and doubled quotes.
enum CSVRecord {
    /// The fields of `record` (without its line end); nil when a quote is left open or text follows a
    /// closing quote.
    static func fields(_ record: ArraySlice<UInt8>) -> [String]? {
        var fields: [String] = []
        var field: [UInt8] = []
        var index = record.startIndex
        var quoted = false
        var afterQuote = false
        while index < record.endIndex {
            let byte = record[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < record.endIndex, record[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: ",") {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                afterQuote = false
            } else if byte == UInt8(ascii: "\""), field.isEmpty, !afterQuote {
                quoted = true
            } else if afterQuote {
                return nil
            } else {
                field.append(byte)
            }
            index += 1
        }
        guard !quoted else { return nil }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }
}
