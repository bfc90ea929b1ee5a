package import Foundation

/// Makes event ids: version-7 UUIDs (RFC 9562) from a fast generator seeded once.
///
/// `Foundation.UUID()` costs about 3.8 µs on Linux because it reads `/dev/urandom` every time;
/// this costs tens of nanoseconds, which matters inside `track()`. The ids need to be unique, not
/// secret: 74 random bits per millisecond from wyrand, seeded from the system's generator.
/// A value type with no lock of its own: it lives inside the intake's lock.
package struct EventIDGenerator: Sendable {
    private var state: UInt64

    /// Seeds the generator from the system's random source.
    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// Seeds the generator with a fixed value, for reproducible tests.
    init(seed: UInt64) { state = seed }

    /// The next id, whose first 48 bits are `milliseconds`, so ids sort by creation time.
    package mutating func next(milliseconds: Int64) -> UUID {
        let high = nextRandom()
        let low = nextRandom()
        let time = UInt64(truncatingIfNeeded: milliseconds) & 0xFFFF_FFFF_FFFF
        // 48 bits of time, the version nibble 7, then 12 random bits.
        let upper = (time << 16) | 0x7000 | (high & 0x0FFF)
        // The variant bits 10, then 62 random bits.
        let lower = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return UUID(upper: upper, lower: lower)
    }

    /// wyrand: one multiply per 64 bits, passes BigCrush, and is tiny.
    private mutating func nextRandom() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}
