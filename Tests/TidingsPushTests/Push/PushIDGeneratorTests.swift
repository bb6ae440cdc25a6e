import Foundation
import Testing

@testable import TidingsPush

/// The `apns-id`s a push gets when it brings none: valid version 4 UUIDs that never repeat, from any thread.
@Suite("Push ids")
struct PushIDGeneratorTests {
    @Test func idsAreVersionFourUUIDsAndNeverRepeatAcrossThreads() async {
        let batches = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<4 { group.addTask { (0..<50_000).map { _ in PushIDGenerator.next() } } }
            return await group.reduce(into: [[UUID]]()) { $0.append($1) }
        }
        let ids = batches.flatMap { $0 }
        #expect(Set(ids).count == 200_000)
        for id in ids.prefix(1_000) {
            let text = id.uuidString
            // xxxxxxxx-xxxx-4xxx-[89AB]xxx-xxxxxxxxxxxx
            #expect(Array(text)[14] == "4", "version 4: \(text)")
            #expect("89AB".contains(Array(text)[19]), "RFC 9562 variant: \(text)")
        }
        // Not a plain counter: consecutive ids differ in most of their bits.
        let differing = zip(ids, ids.dropFirst()).prefix(1_000).map { pair in
            withUnsafeBytes(of: pair.0.uuid) { a in
                withUnsafeBytes(of: pair.1.uuid) { b in zip(a, b).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount } }
            }
        }
        #expect(differing.reduce(0, +) / differing.count > 40)
    }

    @Test func aPushWithoutAnIDGetsItsOwn() {
        let first = OutgoingPush(token: "a", environment: .production, topic: "t", payload: [])
        let second = OutgoingPush(token: "a", environment: .production, topic: "t", payload: [])
        #expect(first.apnsID != second.apnsID)
    }
}
