// libFuzzer entry point for the HTTP/1.1 server's parsers: request heads and chunked bodies.
//
// SwiftPM links executables with `--defsym main=HTTPFuzzer_main`, so libFuzzer's own `main` never runs;
// this file hands control to libFuzzer's driver instead. The invariants live next to the parsers, in
// `HTTPParsingFuzzCheck` (TidingsHTTP's `Fuzzing` SPI), as the parsers are internal to TidingsHTTP.
import Foundation
@_spi(Fuzzing) import TidingsHTTP

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

var argumentCount = CommandLine.argc
var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    runFuzzerDriver(&argumentCount, &arguments) { data, size in
        HTTPParsingFuzzCheck.check(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    })
