import CMemoryOrder

/// The intake log's file format (issue 25): a header page, then a ring of fixed-size slots that
/// hold records of the calls `track()` and its kin accepted, so that a killed process leaves
/// every returned call in the page cache for the next launch to replay.
///
/// ```
/// header (one page, 4,096 bytes)
///   offset  size  field
///        0     8  magic "SDLILOG1"
///        8     4  format version (2; 1 is still read), little-endian
///       12     4  slot size in bytes (128)
///       16     4  slot count
///       24     8  released through: every record numbered up to this is in the journal
///                 (stored at each release; 0 until the first)
///       32     1  version 2: the length of the boot id (0: unknown)
///       33    63  version 2: the boot id the log was made in (``BootID``)
///
/// record (starts at a slot boundary, spans `slots` whole slots, never wraps)
///   offset  size  field
///        0     4  marker, stored last (a release store): "SDLR" published, "SDLS" sealed
///        4     4  checksum of bytes 8 ..< 24 + length (``IntakeLogChecksum``); sealed records only
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
/// record costs its own slots only.
///
/// What a record proves (decision 0045). `track()` publishes its event's record with the marker
/// "SDLR", stored last with release order after every other byte of it: no checksum on the
/// caller's path. A kill cannot undo a store already made, so in the boot the log was made in,
/// "SDLR" proves the record whole. A power loss can: the page cache is written back in any order
/// and any part. So the identity stage, which reads each published record anyway, seals it off
/// the caller's path (checksum, then "SDLS"), and every record written off that path (identity
/// calls, checkpoints, a replay) is written sealed. Recovery in the same boot takes both; after
/// a reboot (the header's boot id is not the running one) it takes only sealed records whose
/// checksum holds. Version 1 (every record summed, marker "SDLR") is read as it was written.
package enum IntakeLogFormat {
    package static let magic: [UInt8] = Array("SDLILOG1".utf8)
    /// The version written. ``decode(_:bootID:)`` reads this one and version 1.
    package static let version: UInt32 = 2
    package static let headerSize = 4_096
    package static let slotSize = 128
    package static let recordHeaderSize = 24
    /// "SDLR" as a little-endian word: a record published (version 1: published and summed).
    package static let marker: UInt32 = 0x524C_4453
    /// "SDLS" as a little-endian word: a record sealed, its checksum made (version 2).
    package static let sealedMarker: UInt32 = 0x534C_4453

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
    /// Where the header keeps the boot id's length, its bytes following.
    package static let bootIDOffset = 32

    /// Writes the header page's fields into `page` (at least ``headerSize`` bytes, zeroed).
    /// - Parameter bootID: The boot the log is made in (``BootID/current``; empty: unknown).
    package static func writeHeader(slotCount: Int, bootID: [UInt8] = BootID.current, into page: UnsafeMutableRawPointer) {
        for (offset, byte) in magic.enumerated() { page.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        page.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt32.self)
        page.storeBytes(of: UInt32(slotSize).littleEndian, toByteOffset: 12, as: UInt32.self)
        page.storeBytes(of: UInt32(slotCount).littleEndian, toByteOffset: 16, as: UInt32.self)
        let id = bootID.prefix(BootID.maxLength)
        page.storeBytes(of: UInt8(id.count), toByteOffset: bootIDOffset, as: UInt8.self)
        for (index, byte) in id.enumerated() { page.storeBytes(of: byte, toByteOffset: bootIDOffset + 1 + index, as: UInt8.self) }
    }

    /// Writes one sealed record at `start` (a slot boundary with `slots(forPayload:)` slots of
    /// room): the marker is cleared first and written last, after the checksum, so that a reader
    /// never takes the half-written record for the stale one it replaces.
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
    /// sealed marker, last: a record written off `track()`'s path.
    static func finishRecord(sequence: UInt64, kind: UInt8, payloadCount: Int, at start: UnsafeMutableRawPointer) {
        writeRecordHeader(sequence: sequence, kind: kind, payloadCount: payloadCount, at: start)
        seal(at: start, payloadCount: payloadCount)
    }

    /// Writes the header of a record whose payload is in place, then publishes it unsealed
    /// ("SDLR", a release store after every other byte): `track()`'s path, with no checksum.
    /// The identity stage seals it (``seal(at:payloadCount:)``) when it reads it.
    static func publishRecord(sequence: UInt64, kind: UInt8, payloadCount: Int, at start: UnsafeMutableRawPointer) {
        writeRecordHeader(sequence: sequence, kind: kind, payloadCount: payloadCount, at: start)
        storeMarker(marker, at: start)
    }

    /// Makes a published record's checksum and marks it sealed ("SDLS", stored after the
    /// checksum): from now on it survives recovery after a reboot too, if its pages reached the
    /// disk whole.
    static func seal(at start: UnsafeMutableRawPointer, payloadCount: Int) {
        let checksum = IntakeLogChecksum.of(UnsafeRawBufferPointer(start: start + 8, count: recordHeaderSize - 8 + payloadCount))
        start.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
        storeMarker(sealedMarker, at: start)
    }

    private static func writeRecordHeader(sequence: UInt64, kind: UInt8, payloadCount: Int, at start: UnsafeMutableRawPointer) {
        start.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
        start.storeBytes(of: UInt32(payloadCount).littleEndian, toByteOffset: 16, as: UInt32.self)
        start.storeBytes(of: UInt16(slots(forPayload: payloadCount)).littleEndian, toByteOffset: 20, as: UInt16.self)
        start.storeBytes(of: kind, toByteOffset: 22, as: UInt8.self)
        start.storeBytes(of: UInt8(0), toByteOffset: 23, as: UInt8.self)
    }

    /// The marker, after every store made before it (a release store): without it the compiler
    /// may move the marker ahead of the payload, and a kill between the two would publish a
    /// half-written record that no checksum catches.
    @inline(__always)
    private static func storeMarker(_ value: UInt32, at start: UnsafeMutableRawPointer) {
        sdl_store_release_u32(start, value.littleEndian)
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
    /// - Parameter bootID: The running boot's id (``BootID/current``). A version 2 log made in
    ///   this boot gives its published records and its sealed ones; made in another (or either
    ///   id unknown), only its sealed ones: a published record may have reached the disk in part.
    package static func decode(_ bytes: [UInt8], bootID: [UInt8] = BootID.current) -> Result<Contents, Unreadable> {
        guard bytes.count >= headerSize else { return .failure(.truncated) }
        return bytes.withUnsafeBytes { raw in
            guard Array(raw[0..<8]) == magic else { return .failure(.notAnIntakeLog) }
            let version = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard version == 1 || version == Self.version else { return .failure(.otherVersion(version)) }
            let slotSize = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            let recordedSlots = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
            guard slotSize == Self.slotSize else { return .failure(.notAnIntakeLog) }
            // A file cut short (by hand, or a copy that stopped) keeps the whole records it has.
            let slotCount = min(recordedSlots, (raw.count - headerSize) / slotSize)
            var contents = Contents()
            contents.releasedThrough = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: releasedOffset, as: UInt64.self))
            let trustsPublished = version == Self.version && sameBoot(raw, bootID: bootID)
            var slot = 0
            while slot < slotCount {
                let offset = headerSize + slot * slotSize
                let stamp = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                // Version 1 marks every record "SDLR" and sums it; version 2 sums "SDLS" only.
                let summed = version == 1 ? stamp == marker : stamp == sealedMarker
                let published = version == Self.version && stamp == marker
                guard summed || published else {
                    slot += 1
                    continue
                }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
                let slots = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 20, as: UInt16.self)))
                let fits = slots >= 1 && slot + slots <= slotCount && slots == Self.slots(forPayload: length)
                let sequence = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                let whole: Bool
                if !fits {
                    whole = false
                } else if summed {
                    let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                    whole = stored == IntakeLogChecksum.of(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<(offset + recordHeaderSize + length)]))
                } else if sequence <= contents.releasedThrough {
                    // Every record the journal holds was sealed first (the stage seals what it
                    // reads): a published one below the mark is no record of this run. Not
                    // followed, so its length cannot hide a record after it.
                    slot += 1
                    continue
                } else {
                    // Published, not sealed: whole in the boot it was written in; after a
                    // reboot its pages may have reached the disk in part.
                    whole = trustsPublished
                }
                guard whole else {
                    contents.damagedSlots += 1
                    slot += 1
                    continue
                }
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

    /// Whether a version 2 header names `bootID`, and both are known.
    private static func sameBoot(_ raw: UnsafeRawBufferPointer, bootID: [UInt8]) -> Bool {
        let count = Int(raw[bootIDOffset])
        guard count > 0, count <= BootID.maxLength, count == bootID.count else { return false }
        return Array(raw[(bootIDOffset + 1)..<(bootIDOffset + 1 + count)]) == bootID
    }
}
