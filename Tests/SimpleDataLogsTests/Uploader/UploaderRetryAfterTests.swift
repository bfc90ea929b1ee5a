import Foundation
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: reading Retry-After", .stuckTestLimit)
struct UploaderRetryAfterTests {
    let now = UploaderFixture.now // Wed, 02 Dec 2026 10:00:00 GMT

    @Test("delay-seconds are read as seconds", arguments: [("120", 120), ("0", 0), (" 7 ", 7), ("007", 7), ("3600", 3_600)] as [(String, Int64)])
    func delaySeconds(value: String, seconds: Int64) {
        #expect(RetryAfter.parse(value, now: now) == .seconds(seconds))
    }

    @Test("an absurdly long number is a very long delay, not garbage")
    func hugeNumber() throws {
        let delay = try #require(RetryAfter.parse("99999999999999999999999", now: now))
        #expect(delay > .seconds(3_600))
    }

    @Test("the three HTTP-date forms are read relative to now", arguments: [
        "Wed, 02 Dec 2026 10:02:00 GMT", // IMF-fixdate
        "Wednesday, 02-Dec-26 10:02:00 GMT", // RFC 850, obsolete
        "Wed Dec  2 10:02:00 2026", // asctime, obsolete (space-padded day)
    ])
    func httpDates(value: String) {
        #expect(RetryAfter.parse(value, now: now) == .seconds(120))
    }

    @Test("a date in the past, or now, means no wait")
    func pastDate() {
        #expect(RetryAfter.parse("Wed, 02 Dec 2026 09:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("Wed, 02 Dec 2026 10:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .zero)
    }

    @Test("a fractional now rounds the wait up to the next millisecond")
    func fractionalNow() {
        let later = now.addingTimeInterval(0.25)
        #expect(RetryAfter.parse("Wed, 02 Dec 2026 10:00:01 GMT", now: later) == .milliseconds(750))
    }

    @Test("dates across months, leap days and years compute exactly")
    func calendar() {
        #expect(RetryAfter.parse("Mon, 01 Mar 2027 00:00:00 GMT", now: now) == .seconds(Int64(89 * 86_400 - 10 * 3_600)))
        let leapNow = Date(timeIntervalSince1970: 1_709_164_800) // 2024-02-29 00:00:00 UTC
        #expect(RetryAfter.parse("Thu, 29 Feb 2024 00:00:10 GMT", now: leapNow) == .seconds(10))
        #expect(RetryAfter.parse("Fri, 01 Mar 2024 00:00:00 GMT", now: leapNow) == .seconds(86_400))
    }

    @Test("a two-digit RFC 850 year more than 50 years ahead is in the past century")
    func twoDigitYears() {
        // 2026 + 50 = 2076: "76" is 2076 (ahead, but not more than 50 years), "77" is 1977 (past).
        #expect(RetryAfter.parse("Sunday, 01-Mar-76 00:00:00 GMT", now: now).map { $0 > .seconds(3_600) } == true)
        #expect(RetryAfter.parse("Tuesday, 01-Mar-77 00:00:00 GMT", now: now) == .zero)
    }

    @Test("garbage is no Retry-After at all", arguments: [
        "", "   ", "soon", "-5", "1.5", "12abc", "Wed, 02 Dec 2026 10:02:00", "Wed, 02 Dec 2026 10:02:00 UTC",
        "Wed, 31 Feb 2026 10:02:00 GMT", "Wed, 02 Foo 2026 10:02:00 GMT", "Wed, 02 Dec 2026 25:00:00 GMT",
        "Wed, 2 Dec 2026 10:02:00 GMT", "Xyz, 02 Dec 2026 10:02:00 GMT", "Wed, 02 Dec 26 10:02:00 GMT",
        "Wednesday, 02-Dec-2026 10:02:00 GMT", "Wed Dec 2 10:02 2026", "Wed, 02 Dec 2026 10:2:00 GMT",
    ])
    func garbage(value: String) {
        #expect(RetryAfter.parse(value, now: now) == nil)
    }
}
