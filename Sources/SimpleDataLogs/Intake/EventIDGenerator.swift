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
        nextWords(milliseconds: milliseconds).uuid
    }

    /// ``next(milliseconds:)`` as its two words, with no `UUID` made: what `track()` writes into
    /// the intake log (Foundation's `UUID` from 16 bytes cost 80 instructions a call, callgrind).
    mutating func nextWords(milliseconds: Int64) -> EventIDWords {
        let high = nextRandom()
        let low = nextRandom()
        let time = UInt64(truncatingIfNeeded: milliseconds) & 0xFFFF_FFFF_FFFF
        // 48 bits of time, the version nibble 7, then 12 random bits.
        let upper = (time << 16) | 0x7000 | (high & 0x0FFF)
        // The variant bits 10, then 62 random bits.
        let lower = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return EventIDWords(upper: upper, lower: lower)
    }

    /// wyrand: one multiply per 64 bits, passes BigCrush, and is tiny.
    private mutating func nextRandom() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}

/// An event id as two words, the first 8 of its 16 bytes and the last 8, each read big-endian.
struct EventIDWords: Sendable, Equatable {
    var upper: UInt64
    var lower: UInt64

    init(upper: UInt64, lower: UInt64) {
        self.upper = upper
        self.lower = lower
    }

    init(_ id: UUID) {
        (upper, lower) = withUnsafeBytes(of: id.uuid) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    var uuid: UUID { UUID(upper: upper, lower: lower) }
}
