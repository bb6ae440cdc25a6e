import Foundation
import TidingsModel

/// Times `JSONValue.parse` and `JSONWriter` against `JSONSerialization` on payload-shaped documents.
enum JSONBench {
    /// Nanoseconds per operation, keyed `parse.tidings.1k`, `parse.foundation.4k`, `write.tidings.1k`...
    ///
    /// Each figure is the best of 15 short rounds after a warm-up round, in thread CPU time, so that a busy
    /// machine's preemptions fall into rounds that are discarded.
    static func run() -> [String: Double] {
        var results: [String: Double] = [:]
        for (label, document) in [("1k", payload(extraItems: 0)), ("4k", payload(extraItems: 24))] {
            let data = Data(document.utf8)
            let bytes = Array(document.utf8)
            let iterations = label == "1k" ? 1_000 : 250
            results["size.\(label)"] = Double(bytes.count)
            results["parse.tidings.\(label)"] = measure(iterations) {
                (try? JSONValue.parse(data))?.objectValue?.count ?? 0
            }
            results["parse.tidings-bytes.\(label)"] = measure(iterations) {
                (try? JSONValue.parse(bytes))?.objectValue?.count ?? 0
            }
            results["parse.foundation.\(label)"] = measure(iterations) {
                ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?.count ?? 0
            }
            let value = (try? JSONValue.parse(data)) ?? .null
            let object = (try? JSONSerialization.jsonObject(with: data)) ?? [:]
            results["write.tidings.\(label)"] = measure(iterations) {
                (try? value.serialized())?.count ?? 0
            }
            results["write.tidings-sorted.\(label)"] = measure(iterations) {
                (try? value.serialized(sortedKeys: true))?.count ?? 0
            }
            results["write.foundation.\(label)"] = measure(iterations) {
                (try? JSONSerialization.data(withJSONObject: object))?.count ?? 0
            }
            results["write.foundation-sorted.\(label)"] = measure(iterations) {
                (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))?.count ?? 0
            }
        }
        return results
    }

    private static func measure(_ iterations: Int, _ body: () -> Int) -> Double {
        var sink = 0
        var best = Double.infinity
        for round in 0..<16 {
            let start = threadCPUNanoseconds()
            for _ in 0..<iterations { sink &+= body() }
            let elapsed = Double(threadCPUNanoseconds() - start) / Double(iterations)
            if round > 0 { best = min(best, elapsed) }
        }
        // Keeps the optimiser from discarding the work.
        if sink == .min { FileHandle.standardError.write(Data("\(sink)".utf8)) }
        return best
    }

    /// CPU time of this thread: on a shared machine it leaves out the time other processes hold the cores.
    private static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// A native alert push: about 1 KB with no extra items, about 4 KB with 14.
    static func payload(extraItems: Int) -> String {
        var items: [String] = []
        for index in 0..<extraItems {
            items.append(
                #"{"id":\#(100_000 + index),"sku":"SKU-\#(index)-XL","title":"Item \#(index) — été ✓","#
                    + #""price":\#(Double(index) * 1.25 + 0.99),"tags":["new","sale"],"ok":true,"#
                    + #""img":"https:\/\/cdn.example.test\/p\/\#(index).jpg"}"#)
        }
        return #"""
            {"aps":{"alert":{"title":"Flash sale","subtitle":"Today only","body":"50% off everything in the \#
            summer collection — tap to see the deals before midnight ✓","launch-image":"sale"},"badge":3,\#
            "sound":{"critical":0,"name":"chime.caf","volume":0.8},"mutable-content":1,"category":"PROMO_ACTIONS",\#
            "thread-id":"promo-2026-11","interruption-level":"time-sensitive","relevance-score":0.75},\#
            "tidings":{"v":1,"id":"01HX3M7Q9Z8K2B6N4R5T7W9Y1C","campaign":"summer-sale","sent_at":1764412345678,\#
            "media":{"url":"https:\/\/cdn.example.test\/campaigns\/summer\/hero@3x.png","type":"image",\#
            "thumbnail":"https:\/\/cdn.example.test\/campaigns\/summer\/thumb.png"},\#
            "link":"tidingsdemo:\/\/deals\/summer?source=push&campaign=summer-sale",\#
            "buttons":[{"id":"view","title":"View deals","link":"tidingsdemo:\/\/deals"},\#
            {"id":"later","title":"Remind me later","options":["background"]}],\#
            "data":{"user_segment":"frequent-buyer","experiment":"B","score":12.5,"flags":[1,2,3],\#
            "items":[\#(items.joined(separator: ","))]}}}
            """#
    }
}
