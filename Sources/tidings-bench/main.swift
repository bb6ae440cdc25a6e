import Foundation

// `tidings-bench [SUITE...]`: prints figures for BENCHMARKS.md. Run from a release build:
//     swift run -c release tidings-bench payload
let suites: [(name: String, run: () throws -> Void)] = [
    ("payload", PayloadBench.run),
    ("json", printJSONBench),
    ("events", EventsBench.run),
    ("media", MediaBench.run),
    ("apns", APNsBench.run),
    ("sendpath", SendPathBench.run),
    ("e2e", EndToEndBench.run),
    ("forwarding", ForwardingBench.run),
    ("campaign", CampaignBench.run),
    ("campaign-fanout", CampaignFanoutBench.run),
    ("fanout-http", FanoutHTTPBench.run),
    ("console-scale", ConsoleScaleBench.run),
    ("audience", AudienceBench.run),
    ("dryrun", DryRunBench.run),
    ("import", ImportBench.run),
    ("segments", SegmentBench.run),
    ("journeys", JourneyBench.run),
]

/// The JSON figures, one per line, sorted by name.
func printJSONBench() {
    let figures = JSONBench.run()
    for name in figures.keys.sorted() {
        Measure.report(name, figures[name]!, name.hasPrefix("size.") ? "B" : "ns")
    }
}

let requested = Array(CommandLine.arguments.dropFirst())
if requested.contains("--help") || requested.contains("-h") {
    print("usage: tidings-bench [\(suites.map(\.name).joined(separator: "|"))]...   (no argument runs all)")
    exit(0)
}
let unknown = requested.filter { name in !suites.contains(where: { $0.name == name }) }
if !unknown.isEmpty {
    FileHandle.standardError.write(Data("tidings-bench: unknown suite \(unknown.joined(separator: ", "))\n".utf8))
    exit(2)
}
#if DEBUG
    FileHandle.standardError.write(Data("tidings-bench: debug build; figures are meaningless, use -c release\n".utf8))
#endif
for suite in suites where requested.isEmpty || requested.contains(suite.name) {
    print("== \(suite.name)")
    do {
        try suite.run()
    } catch {
        FileHandle.standardError.write(Data("tidings-bench: \(suite.name) failed: \(error)\n".utf8))
        exit(1)
    }
}
