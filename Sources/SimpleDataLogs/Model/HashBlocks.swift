/// The message layout SHA-1 and SHA-256 share (FIPS 180-4, 5.1.1 and 5.2.1): the message, a 1 bit,
/// zeros, and its length in bits as a big-endian 64-bit number, in 64-byte blocks of sixteen
/// big-endian words. One copy for ``SHA1`` and ``SHA256``.
package enum HashBlocks {
    /// `message` padded to a whole number of 64-byte blocks.
    package static func padded(_ message: [UInt8]) -> [UInt8] {
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        return padded
    }

    /// Loads the sixteen big-endian words of the block at `blockStart` into `words[0..<16]`.
    package static func load(_ padded: [UInt8], blockAt blockStart: Int, into words: inout [UInt32]) {
        for index in 0..<16 {
            let offset = blockStart + index * 4
            words[index] = UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
        }
    }
}
