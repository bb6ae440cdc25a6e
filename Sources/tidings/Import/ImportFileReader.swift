import Foundation
import TidingsServer

/// Reads an import file a megabyte at a time and hands out its rows, whole, without holding the file: each
/// record (a CSV header first) as bytes without its line end; blank lines are no rows.
final class ImportFileReader {
    private let handle: FileHandle
    private let splitter: ImportRecordSplitter
    private var buffer: [UInt8] = []
    private var pending: [[UInt8]] = []
    private var finished = false
    /// Bytes of the file read so far.
    private(set) var bytesRead = 0
    let size: Int

    init(path: String, format: ImportFormat) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandLineError.usage("import: cannot read \(path)")
        }
        self.handle = handle
        splitter = ImportRecordSplitter(format: format)
        size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    deinit { try? handle.close() }

    /// The next row, nil at the end of the file.
    func next() throws -> [UInt8]? {
        while pending.isEmpty {
            if finished { return nil }
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            bytesRead += chunk.count
            buffer.append(contentsOf: chunk)
            var start = 0
            if chunk.isEmpty {
                finished = true
                if !buffer.isEmpty { take(buffer[...]) }
                buffer = []
                continue
            }
            for end in splitter.recordEnds(buffer) {
                take(buffer[start..<end])
                start = end
            }
            buffer.removeFirst(start)
        }
        return pending.removeFirst()
    }

    private func take(_ record: ArraySlice<UInt8>) {
        var stop = record.endIndex
        while stop > record.startIndex, record[stop - 1] == UInt8(ascii: "\n") || record[stop - 1] == UInt8(ascii: "\r")
        {
            stop -= 1
        }
        if stop > record.startIndex { pending.append(Array(record[record.startIndex..<stop])) }
    }
}
