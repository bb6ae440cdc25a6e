import Foundation
import TidingsModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `tidings` with standard error on a pseudo-terminal, to see what a person at a terminal sees.
enum TerminalCapture {
    /// The exit status, standard output, and the bytes written to the terminal.
    static func run(_ arguments: [String], environment: [String: String]) throws -> (
        status: Int32, standardOutput: String, terminal: String
    ) {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        guard openpty(&primary, &secondary, nil, nil, nil) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let process = Process()
        process.executableURL = TidingsExecutable.url
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        // The terminal is drained while the child runs, so a full buffer can never block it.
        let captured = DispatchSemaphore(value: 0)
        let bytes = LockedBox<[UInt8]>([])
        let terminal = primary
        // A thread of its own: a blocked read on the global queue would take a thread Swift's tasks need.
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(terminal, &buffer, buffer.count)
                // 0 or EIO: every holder of the secondary side closed it.
                if count <= 0 { break }
                bytes.withLock { $0 += buffer[..<count] }
            }
            captured.signal()
        }.start()
        try process.run()
        close(secondary)
        let standardOutput = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        captured.wait()
        close(primary)
        return (
            process.terminationStatus, String(decoding: standardOutput, as: UTF8.self),
            String(decoding: bytes.withLock { $0 }, as: UTF8.self)
        )
    }
}
