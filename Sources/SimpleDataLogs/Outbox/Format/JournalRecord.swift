import CZlib

/// The framing of every record in the journal and in batch files.
///
/// ```
/// offset  size  field
///      0     4  sync marker: FF 53 44 4C ("\xFFSDL")
///      4     4  payload length n, unsigned little-endian
///      8     4  CRC-32 (zlib's polynomial) of bytes 4..<8 followed by the payload
///     12     n  payload: one event as UTF-8 JSON
/// ```
///
/// The marker starts with 0xFF, a byte that never occurs in UTF-8, so it can never appear inside
/// a payload: a reader that meets damage (a bad checksum, a length that runs past the end, a torn
/// tail) resumes at the next 0xFF and loses only the damaged record. The checksum covers the
/// length field too, so a corrupted length is caught rather than trusted.
package enum JournalRecord {
    /// The sync marker that starts every record: `FF 53 44 4C` ("\xFFSDL").
    package static let marker: [UInt8] = [0xFF, 0x53, 0x44, 0x4C]
    /// The bytes before each payload: marker, length and checksum.
    package static let headerSize = 12
    /// No payload is larger than a whole request body.
    package static let maxPayloadSize = EventLimits.maxBodyBytes

    /// Appends one framed record holding `payload` to `buffer`.
    static func append(payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        let length = UInt32(payload.count)
        var lengthBytes = length.littleEndian
        let checksum = withUnsafeBytes(of: &lengthBytes) { lengthBuffer in
            crc32(of: payload, seed: crc32(of: lengthBuffer, seed: 0))
        }
        buffer.append(contentsOf: marker)
        appendLittleEndian(length, to: &buffer)
        appendLittleEndian(checksum, to: &buffer)
        buffer.append(contentsOf: payload)
    }

    /// Appends one framed record holding `payload` to `buffer`.
    package static func append(payload: [UInt8], to buffer: inout [UInt8]) {
        payload.withUnsafeBytes { append(payload: $0, to: &buffer) }
    }

    /// A run of bytes that did not hold an intact record.
    package struct Damage: Sendable, Equatable {
        /// Where the damage starts in the file.
        package var offset: Int
        /// How many bytes were skipped.
        package var length: Int
    }

    /// What a scan of a file's bytes found.
    package struct ScanResult: Sendable, Equatable {
        /// Each intact record's payload position: `offset` is where the payload starts.
        package var records: [Range<Int>] = []
        /// The runs between intact records, in file order; never two adjacent.
        package var damage: [Damage] = []
    }

    /// Finds every intact record in `bytes`, and the damaged runs between them.
    package static func scan(_ bytes: UnsafeRawBufferPointer) -> ScanResult {
        var result = ScanResult()
        var position = 0
        var damageStart: Int?
        func closeDamage(at end: Int) {
            if let start = damageStart {
                result.damage.append(Damage(offset: start, length: end - start))
                damageStart = nil
            }
        }
        while position < bytes.count {
            if let payload = intactRecord(in: bytes, at: position) {
                closeDamage(at: position)
                result.records.append(payload)
                position = payload.upperBound
                continue
            }
            // Not a record here: skip to the next possible marker start.
            if damageStart == nil { damageStart = position }
            var next = position + 1
            while next < bytes.count && bytes[next] != 0xFF { next += 1 }
            position = next
        }
        closeDamage(at: bytes.count)
        return result
    }

    /// The payload range of the intact record starting at `position`, if there is one.
    private static func intactRecord(in bytes: UnsafeRawBufferPointer, at position: Int) -> Range<Int>? {
        guard bytes.count - position >= headerSize,
              bytes[position] == marker[0], bytes[position + 1] == marker[1],
              bytes[position + 2] == marker[2], bytes[position + 3] == marker[3] else { return nil }
        let length = Int(readLittleEndian(bytes, at: position + 4))
        guard length <= maxPayloadSize, length <= bytes.count - position - headerSize else { return nil }
        let stored = readLittleEndian(bytes, at: position + 8)
        let payloadStart = position + headerSize
        let lengthField = UnsafeRawBufferPointer(rebasing: bytes[(position + 4)..<(position + 8)])
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<(payloadStart + length)])
        guard crc32(of: payload, seed: crc32(of: lengthField, seed: 0)) == stored else { return nil }
        return payloadStart..<(payloadStart + length)
    }

    static func crc32(of bytes: UnsafeRawBufferPointer, seed: UInt32) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return UInt32(CZlib.crc32(UInt(seed), base.assumingMemoryBound(to: Bytef.self), UInt32(bytes.count)))
    }

    private static func appendLittleEndian(_ value: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    private static func readLittleEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
