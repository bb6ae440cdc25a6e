// How each fuzzer hands control to libFuzzer.
//
// SwiftPM links executables with `--defsym main=<Name>_main`, so libFuzzer's own `main` never runs; a fuzzer's
// `main.swift` calls `runFuzzer` instead, which starts libFuzzer's driver on the process's arguments.
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs libFuzzer with `check` called for every input (it returns 0, and traps when an invariant breaks),
/// then exits with libFuzzer's status.
public func runFuzzer(_ check: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argumentCount = CommandLine.argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argumentCount, &arguments, check))
}
