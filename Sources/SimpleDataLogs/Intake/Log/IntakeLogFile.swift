#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The intake log's file, mapped `MAP_SHARED`: an append is a few stores into memory the kernel
/// owns, so a record whose append returned survives `kill -9` of this process (the page cache
/// keeps it and writes it back) with no `write(2)`, no `fsync` and no thread hand-over. Power
/// loss is not covered: nothing here flushes the pages.
///
/// The file has a fixed size, allocated on disk when it is made (`posix_fallocate`), so that a
/// store into the mapping never needs a block the disk no longer has (a full disk turns that
/// into `SIGBUS`). A file that cannot be made, allocated or mapped gives no log (`create` returns
/// nil): the caller says so once and runs without it. It is never read through the mapping at
/// launch: ``IntakeLogFormat/decode(_:)`` reads bytes taken with `read(2)`.
///
/// A value with no lock of its own: it lives in ``IntakeLogWriter``, inside the intake's state,
/// so the intake's lock, which every call takes anyway, orders every append, release, wipe and
/// close (a lock of its own cost each `track()` 10 to 20 ns, and the outbox's releases held it
/// against the callers; measured, decision 0037). The mapping itself is a ``Mapping`` object,
/// unmapped when the last copy of the value lets go of it, so no copy can store into memory
/// that is no longer mapped.
package struct IntakeLogFile: Sendable {
    /// One mapping of the file, and the open descriptor that holds the file's `flock`: both go
    /// when the last reference goes (unmapped, then closed, which gives the lock back).
    final class Mapping: Sendable {
        /// The mapping's address as an integer: a raw pointer is not `Sendable`. Only the copy
        /// of ``IntakeLogFile`` inside the intake's state writes through it, under the intake's
        /// lock (DESIGN.md, section 11).
        let address: UInt
        let byteCount: Int
        /// Locked (`LOCK_EX`) for as long as the log is mapped: a launch takes only logs whose
        /// lock it can get, those of runs that ended (``IntakeLogFiles``).
        let descriptor: Int32

        init(address: UInt, byteCount: Int, descriptor: Int32) {
            self.address = address
            self.byteCount = byteCount
            self.descriptor = descriptor
        }

        var base: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: address) }

        deinit {
            if let base { munmap(base, byteCount) }
            closeDescriptor(descriptor)
        }
    }

    private var mapping: Mapping?
    private(set) var ring: IntakeLogRing
    private var nextSequence: UInt64
    /// What the header says is released; it only ever grows.
    private var releasedThrough: UInt64 = 0
    package let path: String

    /// Makes (or takes over) the log at `path` with room for `slotCount` slots, emptied, its
    /// first record numbered `firstSequence`, and locks it (`flock`) until it is closed. Nil when
    /// the file cannot be made, locked (another live run holds it), allocated on disk, or mapped;
    /// `failure` then names the step and the `errno`.
    package static func create(at path: String, slotCount: Int, firstSequence: UInt64, failure: inout String?) -> IntakeLogFile? {
        let size = IntakeLogFormat.fileSize(slotCount: slotCount)
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            failure = "open: errno \(errno)"
            return nil
        }
        var mapped = false
        defer { if !mapped { closeDescriptor(descriptor) } }
        // Locked before a byte is written: a launch racing this one cannot take the file for an
        // ended run's and delete it while it is being made.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            failure = "flock: errno \(errno)"
            return nil
        }
        // Emptied first: stale records of another run must not be read as this one's. The
        // caller has read what it needed (recovery) before making the log again.
        guard ftruncate(descriptor, 0) == 0, ftruncate(descriptor, off_t(size)) == 0 else {
            failure = "ftruncate: errno \(errno)"
            return nil
        }
        #if os(Linux)
        let allocated = posix_fallocate(descriptor, 0, off_t(size))
        guard allocated == 0 else {
            failure = "posix_fallocate: errno \(allocated)"
            return nil
        }
        #else
        var store = fstore_t(fst_flags: UInt32(F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE, fst_offset: 0, fst_length: off_t(size), fst_bytesalloc: 0)
        guard fcntl(descriptor, F_PREALLOCATE, &store) != -1 else {
            failure = "F_PREALLOCATE: errno \(errno)"
            return nil
        }
        #endif
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else {
            failure = "mmap: errno \(errno)"
            return nil
        }
        // The first store would fault in a whole read-around window of the fresh file (zeroed
        // pages, allocated one by one): about a millisecond of `configure`, measured. Only the
        // pages written are faulted in.
        _ = madvise(base, size, MADV_RANDOM)
        IntakeLogFormat.writeHeader(slotCount: slotCount, into: base)
        mapped = true
        let mapping = Mapping(address: UInt(bitPattern: base), byteCount: size, descriptor: descriptor)
        return IntakeLogFile(path: path, mapping: mapping, slotCount: slotCount, firstSequence: firstSequence)
    }

    private init(path: String, mapping: Mapping, slotCount: Int, firstSequence: UInt64) {
        self.path = path
        self.mapping = mapping
        ring = IntakeLogRing(slotCount: slotCount)
        nextSequence = firstSequence
    }

    /// What an append did.
    package enum Append: Sendable, Equatable {
        /// The record is in the log under this sequence number.
        case written(UInt64)
        /// No room without overwriting records not yet released.
        case full
        /// The log is closed.
        case closed
    }

    /// Appends one record. Never blocks; never calls into the kernel.
    package mutating func append(kind: UInt8, payload: UnsafeRawBufferPointer) -> Append {
        append(kind: kind, payloadCount: payload.count) { target in
            if let base = payload.baseAddress, !payload.isEmpty { target.copyMemory(from: base, byteCount: payload.count) }
        }
    }

    /// Appends one record.
    package mutating func append(kind: UInt8, payload: [UInt8]) -> Append {
        payload.withUnsafeBytes { append(kind: kind, payload: $0) }
    }

    /// Appends one record of `payloadCount` bytes, which `fill` writes in place (no copy).
    /// - Parameter isCheckpoint: Whether recovery can start at this record (``IntakeLogRing``).
    mutating func append(kind: UInt8, payloadCount: Int, isCheckpoint: Bool = false, fill: (UnsafeMutableRawPointer) -> Void) -> Append {
        guard let base = mapping?.base else { return .closed }
        let sequence = nextSequence
        let slots = IntakeLogFormat.slots(forPayload: payloadCount)
        // A call of more than 8 MiB (the validation drops it later) is not logged, as when full.
        guard slots <= IntakeLogFormat.maxRecordSlots,
              let start = ring.claim(slots: slots, sequence: sequence, isCheckpoint: isCheckpoint) else {
            return .full
        }
        nextSequence += 1
        let at = base + IntakeLogFormat.headerSize + start * IntakeLogFormat.slotSize
        IntakeLogFormat.writeRecord(sequence: sequence, kind: kind, payloadCount: payloadCount, at: at, fill: fill)
        return .written(sequence)
    }

    /// Where a record whose size is known only once it is written may go: the payload's room
    /// at the ring's head, from `start` to `end` (``IntakeLogRing/roomAtHead``). The caller
    /// writes its payload there, then calls ``finishUnmeasured(kind:payloadCount:)`` with the
    /// bytes it wrote; or, when they did not fit, nothing more (nothing is claimed) and appends
    /// the measured payload with ``append(kind:payloadCount:isCheckpoint:fill:)``, which may
    /// start it at slot 0. Nil when the log is closed or there is no room at the head. Two
    /// steps rather than a closure: a closure capturing the event copied it, a retain and a
    /// release per field.
    package mutating func beginUnmeasured() -> (start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer)? {
        guard let base = mapping?.base else { return nil }
        let room = min(ring.roomAtHead, IntakeLogFormat.maxRecordSlots)
        guard room > 0 else { return nil }
        let at = base + IntakeLogFormat.headerSize + ring.head * IntakeLogFormat.slotSize
        IntakeLogFormat.beginRecord(at: at)
        return (at + IntakeLogFormat.recordHeaderSize, at + room * IntakeLogFormat.slotSize)
    }

    /// Claims the slots of the payload written after ``beginUnmeasured()``, at the ring's head
    /// where it was written, and finishes its record (header, checksum, marker last).
    package mutating func finishUnmeasured(kind: UInt8, payloadCount: Int) -> Append {
        guard mapping?.base != nil else { return .closed }
        guard let claimed = claimAtHead(payloadCount: payloadCount) else { return .full }
        IntakeLogFormat.finishRecord(sequence: claimed.sequence, kind: kind, payloadCount: payloadCount, at: claimed.start)
        return .written(claimed.sequence)
    }

    /// ``finishUnmeasured(kind:payloadCount:)`` for `track()`'s own event: the record is
    /// published unsealed (no checksum on the caller's path; the identity stage seals it when it
    /// reads it, ``LoggedRecord``), and the caller is told where it is.
    /// - Returns: The record, or nil when the log is closed or its slots are not free.
    mutating func publishUnmeasured(kind: UInt8, payloadCount: Int) -> LoggedRecord? {
        guard let claimed = claimAtHead(payloadCount: payloadCount) else { return nil }
        IntakeLogFormat.publishRecord(sequence: claimed.sequence, kind: kind, payloadCount: payloadCount, at: claimed.start)
        return LoggedRecord(sequence: claimed.sequence, slot: claimed.slot, payloadCount: payloadCount)
    }

    /// Claims the slots of a payload written at the ring's head after ``beginUnmeasured()`` and
    /// numbers its record. Nil when the log is closed or the slots are not free.
    private mutating func claimAtHead(payloadCount: Int) -> (start: UnsafeMutableRawPointer, sequence: UInt64, slot: Int)? {
        guard let base = mapping?.base else { return nil }
        let slot = ring.head
        let sequence = nextSequence
        guard ring.claimAtHead(slots: IntakeLogFormat.slots(forPayload: payloadCount), sequence: sequence) else { return nil }
        nextSequence += 1
        return (base + IntakeLogFormat.headerSize + slot * IntakeLogFormat.slotSize, sequence, slot)
    }

    /// Whether records of these slot counts would all fit now, one after another (a replay is
    /// appended whole or not at all: half of one would be replayed again with its source).
    func fits(_ slotCounts: [Int]) -> Bool {
        var ring = ring
        var sequence = nextSequence
        for slots in slotCounts {
            guard ring.claim(slots: slots, sequence: sequence) != nil else { return false }
            sequence += 1
        }
        return true
    }

    /// Zeroes every slot but those of records recovery could still need (released events
    /// included): after the opt-out, the events the app tracked before it must not stay
    /// readable in the file.
    mutating func wipeReleased() {
        guard let base = mapping?.base else { return }
        let slots = base + IntakeLogFormat.headerSize
        var kept = [Bool](repeating: false, count: ring.slotCount)
        for record in ring.held {
            // Released events go; the identity calls recovery folds from the checkpoint
            // stay (they name no event), and so does everything not released.
            let isEvent = slots.load(fromByteOffset: record.start * IntakeLogFormat.slotSize + 22, as: UInt8.self)
                == IntakeRecordCodec.Kind.event.rawValue
            guard record.sequence > releasedThrough || !isEvent else { continue }
            for slot in record.start..<(record.start + record.slots) { kept[slot] = true }
        }
        var slot = 0
        while slot < kept.count {
            guard !kept[slot] else { slot += 1; continue }
            var end = slot
            while end < kept.count, !kept[end] { end += 1 }
            (slots + slot * IntakeLogFormat.slotSize).initializeMemory(as: UInt8.self, repeating: 0, count: (end - slot) * IntakeLogFormat.slotSize)
            slot = end
        }
    }

    /// Frees the room of every record up to and including `sequence` (it is in the journal), and
    /// says so in the header, so that recovery replays only what came after.
    package mutating func release(through sequence: UInt64) {
        guard sequence > releasedThrough else { return }
        releasedThrough = sequence
        ring.release(through: sequence)
        mapping?.base?.storeBytes(of: sequence.littleEndian, toByteOffset: IntakeLogFormat.releasedOffset, as: UInt64.self)
    }

    /// The mapping, for the identity stage to read and seal the records `track()` published
    /// (``LoggedRecord``); nil once closed.
    var mappingForStages: Mapping? { mapping }

    /// The records not released yet.
    package var heldCount: Int { ring.held.count }

    /// Whether every record written is released: the journal holds all of it.
    var isFullyReleased: Bool { nextSequence == 0 || releasedThrough >= nextSequence - 1 }

    /// Whether `path` still names the file this log maps: false once a launch that took it for
    /// an ended run's deleted it between its making and its lock (``IntakeLogFiles``).
    var stillNamed: Bool {
        guard let mapping else { return false }
        return RunFiles.stillNames(mapping.descriptor, path)
    }

    /// Lets go of the mapping; later appends answer ``Append/closed``. It is unmapped, and its
    /// lock given back, once no copy holds it. The file stays for the next launch.
    package mutating func close() {
        mapping = nil
    }
}

/// `close(2)`, named apart from ``IntakeLogFile/close()``.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
