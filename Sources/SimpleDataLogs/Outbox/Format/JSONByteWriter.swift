import Foundation

/// Writes JSON pieces through a pointer into room sized up front (``EventEncoder`` computes an
/// upper bound of an event's size): one bounds check per piece, where appending to an `Array`
/// paid a uniqueness check, a capacity check and a generic call per piece (about 1,400 of the
/// journal thread's instructions per event, callgrind).
///
/// It never writes past its room: a piece that does not fit sets ``overflowed`` and is dropped,
/// and the encoder then starts again with twice the room. With a true bound that never happens.
struct JSONByteWriter {
    private let room: UnsafeMutableBufferPointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    /// A piece did not fit: what was written is incomplete.
    private(set) var overflowed = false

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        self.room = room
        capacity = room.count
    }

    @inline(__always)
    private mutating func fits(_ length: Int) -> Bool {
        guard !overflowed, length <= capacity - count else {
            overflowed = true
            return false
        }
        return true
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        guard fits(1) else { return }
        room[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        // An empty piece (or room) may have no address: it has nothing to copy either.
        guard fits(bytes.count), let source = bytes.baseAddress, let target = room.baseAddress else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// A literal's bytes, in one copy.
    @inline(__always)
    mutating func writeLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { write($0) }
    }

    /// A JSON string: quotes, backslashes and control characters escaped; everything else,
    /// non-ASCII included, as its UTF-8 bytes. At most `6 × utf8.count + 2` bytes.
    mutating func writeString(_ string: String) {
        write(UInt8(ascii: "\""))
        // Native strings (every one the SDK builds, and Swift's own) lend their bytes without a
        // copy; a bridged one is made native first.
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0) }) == nil {
            var native = string
            native.withUTF8 { writeEscaped($0) }
        }
        write(UInt8(ascii: "\""))
    }

    /// The bytes of a string, escaped as JSON wants; runs without an escape go in one copy.
    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            write(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): writeLiteral(#"\""#)
            case UInt8(ascii: "\\"): writeLiteral(#"\\"#)
            case 0x0A: writeLiteral(#"\n"#)
            case 0x0D: writeLiteral(#"\r"#)
            case 0x09: writeLiteral(#"\t"#)
            default:
                writeLiteral(#"\u00"#)
                write(Self.hexDigits.utf8Start[Int(byte >> 4)])
                write(Self.hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        write(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    /// A base-10 integer without going through `String`. At most 20 bytes.
    mutating func writeInteger(_ value: Int64) {
        guard fits(20) else { return }
        if value == 0 {
            write(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits = 0
        var scratch = magnitude
        while scratch > 0 {
            digits += 1
            scratch /= 10
        }
        if value < 0 {
            room[count] = UInt8(ascii: "-")
            count += 1
        }
        var position = count + digits
        count = position
        while magnitude > 0 {
            position -= 1
            room[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
    }

    /// A finite double in Swift's shortest round-trip form (`1e-05`, `5.0`: both valid JSON);
    /// `0` for the non-finite values the validator never lets through. At most 32 bytes.
    mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            write(UInt8(ascii: "0"))
            return
        }
        var text = value.description
        text.withUTF8 { write($0) }
    }

    /// A UUID as 36 lowercase characters (the ids Foundation prints are uppercase).
    mutating func writeLowercaseUUID(_ id: UUID) {
        guard fits(36) else { return }
        let hex = Self.hexDigits.utf8Start
        withUnsafeBytes(of: id.uuid) { bytes in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    room[count] = UInt8(ascii: "-")
                    count += 1
                }
                let byte = bytes[index]
                room[count] = hex[Int(byte >> 4)]
                room[count + 1] = hex[Int(byte & 0x0F)]
                count += 2
            }
        }
    }

    /// A `StaticString`: its bytes are read through a pointer, without a bounds check or the
    /// lazy initialization of a global array.
    static let hexDigits: StaticString = "0123456789abcdef"
}
