// libFuzzer entry point for everything that decodes push payload bytes.
//
// SwiftPM links executables with `--defsym main=PayloadFuzzer_main`, so libFuzzer's own `main` never runs;
// this file hands control to libFuzzer's driver
// instead (`FuzzDriver`).
import Foundation
import FuzzDriver
import TidingsModel

/// Checks one input; traps (so libFuzzer reports a crash) when an invariant breaks.
func checkPayloadBytes(_ bytes: UnsafeRawBufferPointer) {
    // Parsing must never crash; an error is a fine answer for arbitrary bytes.
    let value: JSONValue
    do {
        value = try JSONParser().parse(bytes)
    } catch {
        guard (0...bytes.count).contains(error.offset), error.line >= 1, error.column >= 1 else {
            fatalError("error position out of range: \(error) for \(bytes.count) bytes")
        }
        return
    }

    // Whatever parses must serialize, and the output must parse back to an equal value.
    for options in [JSONWriter.Options(sortedKeys: true), JSONWriter.Options(prettyPrinted: true)] {
        let written: [UInt8]
        do {
            written = try JSONWriter(options: options).serialize(value)
        } catch {
            fatalError("a parsed value failed to serialize: \(error)")
        }
        let reparsed: JSONValue
        do {
            reparsed = try JSONValue.parse(written)
        } catch {
            fatalError("serialized output failed to parse: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
        guard reparsed == value else {
            fatalError("round trip changed the value:\n\(String(decoding: written, as: UTF8.self))")
        }
    }

    checkPayload(value, bytes: Array(bytes))
}

/// Every JSON object decodes; the native encoding and the conversion are fixed points; the linter and report
/// never crash.
func checkPayload(_ value: JSONValue, bytes: [UInt8]) {
    guard value.objectValue != nil else {
        do {
            _ = try PushPayload(json: value)
            fatalError("a non-object decoded as a payload")
        } catch {
            return
        }
    }
    let payload: PushPayload
    do {
        payload = try PushPayload(json: value)
    } catch {
        fatalError("an object failed to decode: \(error)")
    }
    _ = payload.kind
    // A vendor payload's leftover keys move into the app's data on the first native round; from the
    // second encoding on, decoding and encoding again must give the same JSON.
    do {
        let settled = try PushPayload(json: payload.nativeJSON)
        let native = settled.nativeJSON
        guard try PushPayload(json: native).nativeJSON == native else {
            fatalError("native encoding is not stable for \(String(decoding: bytes, as: UTF8.self))")
        }
        guard settled.isInternal == payload.isInternal else {
            fatalError("the native encoding lost the internal flag")
        }
    } catch {
        fatalError("the native encoding failed to decode: \(error)")
    }
    // `tidings payload convert`: the converted payload keeps the internal flag, and converting it again is
    // lossless and gives the same JSON.
    do {
        let conversion = try PayloadConversion(value)
        let again = try PayloadConversion(conversion.native)
        guard again.isLossless, again.native == conversion.native,
            conversion.converted.isInternal == payload.isInternal
        else {
            fatalError("a converted payload is not a fixed point for \(String(decoding: bytes, as: UTF8.self))")
        }
    } catch {
        fatalError("a decodable object failed to convert: \(error)")
    }
    do {
        let report = try PayloadReport.analyze(bytes, now: Date(timeIntervalSince1970: 1_800_000_000))
        _ = report.json
    } catch {
        fatalError("a decodable object failed analysis: \(error)")
    }
}

runFuzzer { data, size in
    checkPayloadBytes(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
