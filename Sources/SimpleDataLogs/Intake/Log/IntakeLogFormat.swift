/// The intake log's file format (issue 25): a header page, then a ring of fixed-size slots that
/// hold records of the calls `track()` and its kin accepted, so that a killed process leaves
/// every returned call in the page cache for the next launch to replay.
///
/// ```
/// header (one page, 4,096 bytes)
///   offset  size  field
///        0     8  magic "SDLILOG1"
///        8     4  format version (1), little-endian
///       12     4  slot size in bytes (128)
///       16     4  slot count
///       24     8  released through: every record numbered up to this is in the journal
///                 (stored at each release; 0 until the first)
///
/// record (starts at a slot boundary, spans `slots` whole slots, never wraps)
///   offset  size  field
///        0     4  marker "SDLR", written last
///        4     4  checksum of bytes 8 ..< 24 + length (``IntakeLogChecksum``)
///        8     8  sequence number, little-endian, one per record, increasing
///       16     4  payload length, little-endian
///       20     2  slots the record spans
///       22     1  kind (what call it records; the caller's)
///       23     1  reserved (0)
///       24     n  payload
/// ```
///
/// Why fixed slots: a record may be overwritten in part by a later lap of the ring, so the bytes
/// after one record do not always start another. Every slot boundary is a place a record may
/// start, so a reader tries each one and needs no chain of lengths to follow; a stale or torn
/// record fails its checksum and costs its own slots only. Why the checksum and not only the
/// marker written last: a processor may make the stores of a killed thread visible out of order,
/// and a page written back in part after a power loss may hold any mix; the checksum decides.
package enum IntakeLogFormat {
    package static let magic: [UInt8] = Array("SDLILOG1".utf8)
    package static let version: UInt32 = 1
    package static let headerSize = 4_096
    package static let slotSize = 128
    package static let recordHeaderSize = 24
    /// "SDLR" as a little-endian word.
    package static let marker: UInt32 = 0x524C_4453

    /// The slots a record of `payloadCount` bytes spans.
    package static func slots(forPayload payloadCount: Int) -> Int {
        (recordHeaderSize + payloadCount + slotSize - 1) / slotSize
    }

    /// The most slots one record spans: its header counts them in 16 bits.
    package static let maxRecordSlots = Int(UInt16.max)

    /// The bytes of a file with `slotCount` slots.
    package static func fileSize(slotCount: Int) -> Int { headerSize + slotCount * slotSize }

    /// Where the header keeps the sequence number released through.
    package static let releasedOffset = 24

    /// Writes the header page's fields into `page` (at least ``headerSize`` bytes, zeroed).
    package static func writeHeader(slotCount: Int, into page: UnsafeMutableRawPointer) {
        for (offset, byte) in magic.enumerated() { page.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        page.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt32.self)
        page.storeBytes(of: UInt32(slotSize).littleEndian, toByteOffset: 12, as: UInt32.self)
        page.storeBytes(of: UInt32(slotCount).littleEndian, toByteOffset: 16, as: UInt32.self)
    }

    /// Writes one record at `start` (a slot boundary with `slots(forPayload:)` slots of room):
    /// the marker is cleared first and written last, after the checksum, so that a reader never
    /// takes the half-written record for the stale one it replaces.
    package static func writeRecord(
        sequence: UInt64, kind: UInt8, payload: UnsafeRawBufferPointer, at start: UnsafeMutableRawPointer
    ) {
        writeRecord(sequence: sequence, kind: kind, payloadCount: payload.count, at: start) { target in
            if let base = payload.baseAddress, !payload.isEmpty { target.copyMemory(from: base, byteCount: payload.count) }
        }
    }

    /// ``writeRecord(sequence:kind:payload:at:)`` with the payload written in place by `fill`
    /// (exactly `payloadCount` bytes at the address it is given): `track()` encodes its event
    /// straight into the mapping, with no copy.
    static func writeRecord(
        sequence: UInt64, kind: UInt8, payloadCount: Int, at start: UnsafeMutableRawPointer, fill: (UnsafeMutableRawPointer) -> Void
    ) {
        beginRecord(at: start)
        fill(start + recordHeaderSize)
        finishRecord(sequence: sequence, kind: kind, payloadCount: payloadCount, at: start)
    }

    /// Clears the marker of the slot a record is about to be written at, before any byte of it:
    /// a kill while it is written leaves no marker, so the half-written record is never taken
    /// for the stale one it replaces.
    static func beginRecord(at start: UnsafeMutableRawPointer) {
        start.storeBytes(of: UInt32(0), toByteOffset: 0, as: UInt32.self)
    }

    /// Writes the header of a record whose payload is in place, then its checksum, then the
    /// marker, last.
    static func finishRecord(sequence: UInt64, kind: UInt8, payloadCount: Int, at start: UnsafeMutableRawPointer) {
        start.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
        start.storeBytes(of: UInt32(payloadCount).littleEndian, toByteOffset: 16, as: UInt32.self)
        start.storeBytes(of: UInt16(slots(forPayload: payloadCount)).littleEndian, toByteOffset: 20, as: UInt16.self)
        start.storeBytes(of: kind, toByteOffset: 22, as: UInt8.self)
        start.storeBytes(of: UInt8(0), toByteOffset: 23, as: UInt8.self)
        let checksum = IntakeLogChecksum.of(UnsafeRawBufferPointer(start: start + 8, count: recordHeaderSize - 8 + payloadCount))
        start.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
        start.storeBytes(of: marker.littleEndian, toByteOffset: 0, as: UInt32.self)
    }

    /// One record read back.
    package struct Record: Sendable, Equatable {
        package var sequence: UInt64
        package var kind: UInt8
        package var payload: [UInt8]
    }

    /// What a file's bytes hold.
    package struct Contents: Sendable, Equatable {
        /// Every intact record, by sequence number (stale ones from earlier laps included: the
        /// caller knows which sequence numbers it still needs).
        package var records: [Record] = []
        /// Slots that start with the marker but fail their checksum or bounds: a record torn by
        /// a kill or a power loss, or a stale one partly overwritten by a later lap.
        package var damagedSlots = 0
        /// Every record numbered up to this was released (is in the journal), as the header said.
        package var releasedThrough: UInt64 = 0

        /// The records not yet released when the file was last written: what recovery replays.
        package var unreleased: ArraySlice<Record> {
            records[(records.firstIndex { $0.sequence > releasedThrough } ?? records.endIndex)...]
        }
    }

    /// Why a file cannot be read as an intake log.
    package enum Unreadable: Error, Sendable, Equatable {
        /// Shorter than its header.
        case truncated
        /// Not this format (another program's file, or zeros).
        case notAnIntakeLog
        /// A version this SDK does not know (a newer SDK wrote it).
        case otherVersion(UInt32)
    }

    /// Reads a whole file's bytes (read with `read(2)`, never through the mapping, so a file
    /// that shrank cannot fault the reader).
    package static func decode(_ bytes: [UInt8]) -> Result<Contents, Unreadable> {
        guard bytes.count >= headerSize else { return .failure(.truncated) }
        return bytes.withUnsafeBytes { raw in
            guard Array(raw[0..<8]) == magic else { return .failure(.notAnIntakeLog) }
            let version = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard version == Self.version else { return .failure(.otherVersion(version)) }
            let slotSize = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            let recordedSlots = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
            guard slotSize == Self.slotSize else { return .failure(.notAnIntakeLog) }
            // A file cut short (by hand, or a copy that stopped) keeps the whole records it has.
            let slotCount = min(recordedSlots, (raw.count - headerSize) / slotSize)
            var contents = Contents()
            contents.releasedThrough = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: releasedOffset, as: UInt64.self))
            var slot = 0
            while slot < slotCount {
                let offset = headerSize + slot * slotSize
                guard UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == marker else {
                    slot += 1
                    continue
                }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
                let slots = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 20, as: UInt16.self)))
                let fits = slots >= 1 && slot + slots <= slotCount && slots == Self.slots(forPayload: length)
                let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                guard fits, stored == IntakeLogChecksum.of(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<(offset + recordHeaderSize + length)])) else {
                    contents.damagedSlots += 1
                    slot += 1
                    continue
                }
                let sequence = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                let payloadStart = offset + recordHeaderSize
                contents.records.append(Record(
                    sequence: sequence, kind: raw[offset + 22], payload: Array(raw[payloadStart..<(payloadStart + length)])
                ))
                slot += slots
            }
            contents.records.sort { $0.sequence < $1.sequence }
            return .success(contents)
        }
    }
}
