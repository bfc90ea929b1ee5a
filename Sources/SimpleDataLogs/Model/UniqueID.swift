public import Foundation

/// The one maker of the random ids the SDK draws outside `track()`: batch ids (sealed, split,
/// re-sealed at recovery), the install id, crash-record ids, quarantine names.
///
/// Why not `Foundation.UUID()`: on Linux it reads `/dev/urandom`, and with no descriptor free
/// (a server at its `ulimit -n` under a burst) it returns `00000000-0000-4000-8000-000000000000`
/// every time. Batches sealed then shared one `SDL-Batch-ID`, and an edge that deduplicates batch
/// ids (INGEST-API.md) counted one of them and dropped the rest, while the counters said
/// delivered. `SystemRandomNumberGenerator` needs no descriptor (`getrandom(2)` on Linux,
/// `arc4random_buf` on Apple platforms), so an id drawn here cannot repeat for want of one.
/// `IDMakerTests` checks that `Sources/` calls `UUID()` nowhere, and draws ids in a child process
/// with every descriptor taken.
@usableFromInline
package enum UniqueID {
    /// A random (version 4, RFC 9562) UUID from the system's generator: 122 random bits.
    /// - Returns: The id.
    @usableFromInline
    package static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random (version 4) UUID from `generator`; tests pass a seeded one.
    /// - Parameter generator: Where the 122 random bits come from.
    /// - Returns: The id.
    static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> UUID {
        // The version nibble 4 and the variant bits 10; every other bit random.
        let upper = (generator.next() as UInt64) & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let lower = (generator.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return UUID(upper: upper, lower: lower)
    }
}

extension UUID {
    /// The UUID whose 128 bits are `upper` then `lower`, most significant byte first: the layout
    /// both id makers fill (``UniqueID`` and `EventIDGenerator`), each with its own version bits.
    @usableFromInline
    package init(upper: UInt64, lower: UInt64) {
        self.init(uuid: (
            UInt8(truncatingIfNeeded: upper >> 56), UInt8(truncatingIfNeeded: upper >> 48),
            UInt8(truncatingIfNeeded: upper >> 40), UInt8(truncatingIfNeeded: upper >> 32),
            UInt8(truncatingIfNeeded: upper >> 24), UInt8(truncatingIfNeeded: upper >> 16),
            UInt8(truncatingIfNeeded: upper >> 8), UInt8(truncatingIfNeeded: upper),
            UInt8(truncatingIfNeeded: lower >> 56), UInt8(truncatingIfNeeded: lower >> 48),
            UInt8(truncatingIfNeeded: lower >> 40), UInt8(truncatingIfNeeded: lower >> 32),
            UInt8(truncatingIfNeeded: lower >> 24), UInt8(truncatingIfNeeded: lower >> 16),
            UInt8(truncatingIfNeeded: lower >> 8), UInt8(truncatingIfNeeded: lower)
        ))
    }
}
