/// SHA-1 (FIPS 180-4), for name-based UUIDs (version 5, RFC 9562), which it defines:
/// `UUID(eventKey:in:)`. Not for anything that needs collision resistance
/// against an adversary; a derived event id only needs the same key to give the same id
/// everywhere, as `uuid.uuid5` does in Python or `UUID.nameUUIDFromBytes`-style helpers elsewhere.
///
/// Written out here because the package has no dependencies and Foundation has no hash on Linux.
/// `DerivedEventIDTests` checks it against the FIPS vectors and Python's `uuid.uuid5`.
package enum SHA1 {
    /// The digest of `message`: 20 bytes.
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        let padded = HashBlocks.padded(message)
        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            HashBlocks.load(padded, blockAt: blockStart, into: &words)
            for index in 16..<80 {
                words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch index {
                case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = rotate(a, 5) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, next)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
