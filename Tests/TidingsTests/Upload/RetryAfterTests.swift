import Testing
import Tidings

@Suite struct RetryAfterTests {
    let now: Int64 = 1_800_000_000_000

    @Test(arguments: [("120", 120_000), ("0", 0), (" 5 ", 5000), ("86400", 86_400_000)] as [(String, Int64)])
    func delaySecondsCountFromNow(header: String, delay: Int64) {
        #expect(RetryAfter.parse(header, now: now) == now + delay)
    }

    @Test(
        arguments: [
            ("Wed, 21 Oct 2026 07:28:00 GMT", 1_792_567_680_000),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777_000),
            ("Sun Nov  6 08:49:37 1994", 784_111_777_000),
        ] as [(String, Int64)])
    func httpDatesAreAbsolute(header: String, expected: Int64) {
        #expect(RetryAfter.parse(header, now: now) == expected)
    }

    @Test(arguments: [nil, "", "  ", "-5", "soon", "1.5", "12abc", "Wed, 32 Oct 2026 07:28:00 GMT"] as [String?])
    func unreadableValuesAreIgnored(header: String?) {
        #expect(RetryAfter.parse(header, now: now) == nil)
    }

    @Test func hugeDelayDoesNotOverflow() {
        let parsed = RetryAfter.parse("99999999999999999999999", now: now)
        #expect(parsed != nil)
        #expect(parsed! > now)
    }
}
