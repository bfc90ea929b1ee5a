import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: backoff with full jitter", .stuckTestLimit)
struct UploaderBackoffTests {
    @Test("the ceiling doubles from 1 s and stops at 5 minutes", arguments: [
        (1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 32), (7, 64), (8, 128), (9, 256), (10, 300), (11, 300), (64, 300), (Int.max, 300),
    ] as [(Int, Int64)])
    func ceiling(failures: Int, seconds: Int64) {
        #expect(Backoff.ceiling(afterFailures: failures) == .seconds(seconds))
    }

    @Test("a zero or negative failure count reads as the first failure")
    func nonsenseCounts() {
        #expect(Backoff.ceiling(afterFailures: 0) == .seconds(1))
        #expect(Backoff.ceiling(afterFailures: -3) == .seconds(1))
    }

    @Test("the wait is the draw's share of the ceiling; draws outside [0, 1] are clamped")
    func formula() {
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: 0) == .zero)
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: 0.5) == .seconds(2))
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: 1) == .seconds(4))
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: 7) == .seconds(4))
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: -1) == .zero)
        #expect(Backoff.delay(afterFailures: 3, retryAfter: nil, unitRandom: .nan) == .zero)
    }

    @Test("Retry-After wins when it is longer, loses when shorter, and is capped at 1 hour")
    func retryAfter() {
        #expect(Backoff.delay(afterFailures: 1, retryAfter: .seconds(120), unitRandom: 1) == .seconds(120))
        #expect(Backoff.delay(afterFailures: 10, retryAfter: .seconds(2), unitRandom: 0.5) == .seconds(150))
        #expect(Backoff.delay(afterFailures: 1, retryAfter: .seconds(86_400), unitRandom: 0.3) == .seconds(3_600))
        #expect(Backoff.delay(afterFailures: 1, retryAfter: .seconds(-5), unitRandom: 0) == .zero)
        #expect(Backoff.delay(afterFailures: 1, retryAfter: .zero, unitRandom: 0.5) == .milliseconds(500))
    }

    @Test("failures count up and a 202 resets them")
    func counting() {
        var backoff = Backoff()
        var generator = SplitMix64(seed: 1)
        for expected in 1...5 {
            let wait = backoff.recordFailure(retryAfter: nil, using: &generator)
            #expect(backoff.consecutiveFailures == expected)
            #expect(wait >= .zero && wait <= Backoff.ceiling(afterFailures: expected))
        }
        backoff.recordSuccess()
        #expect(backoff.consecutiveFailures == 0)
        let afterReset = backoff.recordFailure(retryAfter: nil, using: &generator)
        #expect(afterReset <= .seconds(1))
    }

    @Test("over many draws every wait is within [0, ceiling], the mean is near half the ceiling, and the spread is uniform",
          arguments: [1, 4, 9, 20])
    func statistics(failures: Int) {
        var generator = SplitMix64(seed: UInt64(failures) * 7_919)
        let ceiling = Backoff.ceiling(afterFailures: failures)
        let ceilingSeconds = seconds(ceiling)
        let draws = 20_000
        var sum = 0.0
        var buckets = [Int](repeating: 0, count: 10)
        for _ in 0..<draws {
            var backoff = Backoff()
            var wait = Duration.zero
            for _ in 0..<failures { wait = backoff.recordFailure(retryAfter: nil, using: &generator) }
            #expect(wait >= .zero && wait <= ceiling)
            let share = seconds(wait) / ceilingSeconds
            sum += share
            buckets[min(9, Int(share * 10))] += 1
        }
        let mean = sum / Double(draws)
        #expect(abs(mean - 0.5) < 0.01, "mean share \(mean)")
        // Uniform: each tenth of the range gets 10 % ± 1 % of the draws (about 5 standard deviations).
        for count in buckets {
            #expect(abs(Double(count) / Double(draws) - 0.1) < 0.01, "buckets \(buckets)")
        }
    }

    @Test("with the ingest down for an hour the rule allows a bounded number of tries, never a busy loop", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func hourDown(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var backoff = Backoff()
        var elapsed = Duration.zero
        var attempts = 0
        // Each try fails at once (connection refused takes ~6 ms; count it as zero: worst case).
        while elapsed < .seconds(3_600) {
            attempts += 1
            elapsed += backoff.recordFailure(retryAfter: nil, using: &generator)
        }
        // The first 9 ceilings sum to 511 s; after that the mean wait is 150 s, so about
        // 9 + 3,089 / 150 ≈ 30 tries. Far from a loop, and enough to notice recovery.
        #expect(attempts >= 15 && attempts <= 60, "\(attempts) attempts in an hour")
    }

    @Test("with Retry-After: 3600 on every answer, an hour of outage takes at most two tries")
    func hourDownWithRetryAfter() {
        var generator = SplitMix64(seed: 9)
        var backoff = Backoff()
        var elapsed = Duration.zero
        var attempts = 0
        while elapsed < .seconds(3_600) {
            attempts += 1
            elapsed += backoff.recordFailure(retryAfter: .seconds(3_600), using: &generator)
        }
        #expect(attempts == 1)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
