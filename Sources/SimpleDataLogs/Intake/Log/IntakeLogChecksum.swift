/// The intake log's record checksum: fast enough for `track()`'s path, and strong enough for what
/// it is for: telling a whole record from a torn or stale one, not defending against an
/// adversary (who can write the file can write a valid record).
///
/// Two lanes take alternate 8-byte words, each a multiply and a rotate per word, so the two
/// dependency chains run side by side; a finalizer mixes them at the end. Each step is a bijection
/// of its lane, so any change to one word changes the result before the fold to 32 bits. (The
/// first version, a full 64-bit finalizer per word, cost 80 of the 103 ns of a 175-byte append.)
package enum IntakeLogChecksum {
    package static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        // The length is mixed in on its own first: XORed in with the data, a payload one zero
        // byte longer collided with one whose first bit differed (IntakeLogFormatTests).
        var first = finalize(0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count))
        var second: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        // The last 0 to 7 bytes as a little-endian word, zero above them (none: zero).
        var tail: UInt64 = 0
        if let base = bytes.baseAddress {
            // Words are loaded through the base pointer: the buffer's own `loadUnaligned` checks
            // its bounds on every load even in release builds, which the loop's condition already
            // does (callgrind: 347 -> 285 instructions for a 190-byte record, same sums).
            let count = bytes.count
            var index = 0
            while index + 16 <= count {
                first = step(first, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)), by: 0x9FB2_1C65_1E98_DF25)
                second = step(second, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)), by: 0xD6E8_FEB8_6659_FD93)
                index += 16
            }
            if index + 8 <= count {
                first = step(first, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)), by: 0x9FB2_1C65_1E98_DF25)
                index += 8
            }
            // From a buffer of 8 bytes or more, its last 8 bytes shifted (a record always has
            // more): the word the format defines as the bytes folded one by one.
            let remaining = count - index
            if remaining > 0, count >= 8 {
                tail = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) >> UInt64(64 - 8 * remaining)
            } else {
                for offset in 0..<remaining { tail |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) << UInt64(8 * offset) }
            }
        }
        second = step(second, tail ^ 0xFF51_AFD7_ED55_8CCD, by: 0xD6E8_FEB8_6659_FD93)
        return fold(first, second)
    }

    /// The two lanes into the 32-bit sum.
    @inline(__always)
    private static func fold(_ first: UInt64, _ second: UInt64) -> UInt32 {
        let hash = finalize(first ^ ((second << 23) | (second >> 41)))
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    /// One word into one lane, as xxHash64's round does: the word is multiplied before it meets
    /// the lane (that product does not wait for the lane), then the lane is rotated and
    /// multiplied. A plain `(lane ^ word) * prime` let a flip of a word's top bit be cancelled by
    /// a flip in the next word (IntakeLogFormatTests found eight such pairs).
    @inline(__always)
    private static func step(_ lane: UInt64, _ word: UInt64, by prime: UInt64) -> UInt64 {
        let sum = lane &+ word &* 0xC2B2_AE3D_27D4_EB4F
        return ((sum << 31) | (sum >> 33)) &* prime
    }

    /// A 64-bit finalizer (MurmurHash3's fmix64 constants): every input bit moves about half
    /// the output bits.
    @inline(__always)
    private static func finalize(_ value: UInt64) -> UInt64 {
        var hash = value ^ (value >> 33)
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}
