// libFuzzer entry point for the HTTP/1.1 server's parsers: request heads and chunked bodies.
//
// SwiftPM links executables with `--defsym main=HTTPFuzzer_main`, so libFuzzer's own `main` never runs;
// this file hands control to libFuzzer's driver instead (`FuzzDriver`). The invariants live next to the parsers, in
// `HTTPParsingFuzzCheck` (TidingsHTTP's `Fuzzing` SPI), as the parsers are internal to TidingsHTTP.
import Foundation
import FuzzDriver
@_spi(Fuzzing) import TidingsHTTP

runFuzzer { data, size in
    HTTPParsingFuzzCheck.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
