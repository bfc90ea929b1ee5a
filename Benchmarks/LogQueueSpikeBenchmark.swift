#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Issue 25, item 4, a spike: what `track()` would cost if the intake log were the queue
/// (decision 0037's last paragraph): the call stamps, takes a lock, encodes the event into the
/// log's ring, commits it and queues only a small "record N" entry; no `Event` is queued and no
/// memory cost is estimated. Measured in the same run as today's `track()` with and without the
/// log, paced as `track.1task` (rounds of 4,000, waiting outside the timed calls), so the ratios
/// compare like with like.
///
/// - `logqueue.track.p50`: today's `track()`, no log (the bar's denominator).
/// - `logqueue.track_intakelog.p50`: today's `track()` with the log.
/// - `logqueue.log_as_queue.p50`: the spike: stamp, lock, id, encode the call's own arguments
///   into the mapping (``IntakeRecordCodec/writeLiveEvent``, no `Event` built), commit, append a
///   sequence number to an array. Between rounds, outside the timing, the records are
///   released and the array emptied, as a journal that keeps up would.
/// - `logqueue.log_as_queue_unsummed.p50`: the spike with a commit that computes no checksum
///   (header fields and the marker only, into a `MAP_SHARED` ring of the same size): what the
///   call would cost if the checksum were made off the caller's path.
/// - `logqueue.log_as_queue_mum.p50`: the same with a candidate cheaper checksum
///   (``foldedMultiplySum(_:count:)``, one 64 × 64 → 128-bit multiply per 16 bytes, as xxh3's
///   mid-size path) in place of the format's (two multiplies per 8 bytes, in two lanes).
/// - `logqueue.encode_only.p50`: the spike without the commit: the event encoded into a buffer
///   of the process's own (no ring, no checksum, no marker); the spike minus this is the commit.
/// - `logqueue.floor.p50`: the spike without the encoding and the commit: stamp, lock, id,
///   append an entry; the spike minus this is what the log costs inside the call.
///
/// Not part of the default run (`--only logqueue`). `SDL_LOGQUEUE_PHASES=default,log,queue,encode,floor`
/// runs a subset (`unsummed` too), for callgrind (`--toggle-collect` on one phase's function).
struct LogQueueSpikeBenchmark {
    let options: Options
    let report: Report

    private var calls: Int { options.calls ?? (options.quick ? 50_000 : 300_000) }
    private static let roundSize = 4_000

    func run() async {
        guard let folder = try? TemporaryFolder("logqueue") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        let phases = Set((ProcessInfo.processInfo.environment["SDL_LOGQUEUE_PHASES"] ?? "default,log,queue,unsummed,mum,encode,floor").split(separator: ",").map(String.init))
        var results: [String: [UInt32]] = [:]
        if phases.contains("default") {
            let client = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("default"), intakeLog: false)
            results["default"] = Self.pacedDefault(client, calls: calls)
            await client.shutdown(timeLimit: .seconds(2))
        }
        if phases.contains("log") {
            let client = BenchEvent.makeClient(folder: folder.url.appendingPathComponent("log"), intakeLog: true)
            results["log"] = Self.pacedLog(client, calls: calls)
            await client.shutdown(timeLimit: .seconds(2))
        }
        if phases.contains("queue") {
            var failure: String?
            guard let file = IntakeLogFile.create(at: folder.path + "/intake-spike.log", slotCount: 32_768, firstSequence: 1, failure: &failure) else {
                report.broken("logqueue: \(failure ?? "?")")
                return
            }
            results["queue"] = Self.pacedQueue(Locked(SpikeState(file: file)), calls: calls)
        }
        if phases.contains("unsummed") {
            guard let state = UnsummedState(path: folder.path + "/intake-unsummed.log", slotCount: 32_768) else {
                report.broken("logqueue: could not map a file for the unsummed ring")
                return
            }
            results["unsummed"] = Self.pacedUnsummed(Locked(state), calls: calls)
        }
        if phases.contains("mum") {
            guard var state = UnsummedState(path: folder.path + "/intake-mum.log", slotCount: 32_768) else {
                report.broken("logqueue: could not map a file for the mum ring")
                return
            }
            state.sums = true
            results["mum"] = Self.pacedUnsummed(Locked(state), calls: calls)
        }
        if phases.contains("encode") {
            results["encode"] = Self.pacedEncode(Locked(EncodeState()), calls: calls)
        }
        if phases.contains("floor") {
            results["floor"] = Self.pacedFloor(Locked(FloorState()), calls: calls)
        }
        let base = results["default"].map { Measure.quantile(sorted: $0.sorted(), 0.5) }
        for (key, name) in [("default", "track"), ("log", "track_intakelog"), ("queue", "log_as_queue"), ("unsummed", "log_as_queue_unsummed"), ("mum", "log_as_queue_mum"), ("encode", "encode_only"), ("floor", "floor")] {
            guard let samples = results[key] else { continue }
            let sorted = samples.sorted()
            report.add(Figure(
                "logqueue.\(name).p50", Measure.quantile(sorted: sorted, 0.5), unit: "ns", baseline: base,
                note: "\(samples.count) calls, paced; p99 \(Int(Measure.quantile(sorted: sorted, 0.99))) ns; baseline: today's track() without the log, same run"
            ))
        }
    }

    // MARK: Today's track()

    @inline(never)
    private static func pacedDefault(_ client: SimpleDataLogsClient, calls: Int) -> [UInt32] { paced(client, calls: calls) }

    @inline(never)
    private static func pacedLog(_ client: SimpleDataLogsClient, calls: Int) -> [UInt32] { paced(client, calls: calls) }

    private static func paced(_ client: SimpleDataLogsClient, calls: Int) -> [UInt32] {
        var samples = [UInt32](repeating: 0, count: calls)
        BenchEvent.trackPaced(client, first: 0, count: roundSize)
        var seq = roundSize
        var done = 0
        while done < calls {
            _ = client.blockUntilJournaled(atLeast: seq, timeout: .seconds(30))
            let count = min(roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                client.track(BenchEvent.name, properties: properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        _ = client.blockUntilJournaled(atLeast: seq, timeout: .seconds(30))
        return samples
    }

    // MARK: What a real call would still do beside the log

    /// A stand-in for the SDK's task scope (`withDeviceID`, `withProperties`): one task-local
    /// read per call, as `track()` makes.
    private struct Scope: Sendable {
        var deviceID: String?
        var properties: [String: PropertyValue]?
        @TaskLocal static var current: Scope?
    }

    /// What the call tells its caller, as `IntakeState.Acceptance` does (switched on outside the
    /// lock, as `report(_:)` does).
    private enum Outcome: Equatable {
        case accepted, ignoredWhileDisabled, skippedBacklog(first: Bool), wakes
    }

    /// The counters and bounds the intake keeps per call: tracked, in flight, and the bytes in
    /// flight, against a backlog of 5,000 events and 16 MiB.
    private struct Counters: Sendable {
        var accepting = true
        var tracked = 0
        var inFlight = 0
        var inFlightBytes = 0
        var skipped = 0

        /// Whether one more of `bytes` fits (the backlog's rule), counting it if so.
        mutating func admit(bytes: Int) -> Bool {
            tracked += 1
            guard inFlight < 5_000, inFlightBytes + bytes <= 16 << 20 else {
                skipped += 1
                return false
            }
            inFlight += 1
            inFlightBytes += bytes
            return true
        }

        mutating func drained() {
            inFlight = 0
            inFlightBytes = 0
        }
    }

    @inline(never)
    private static func report(_ outcome: Outcome) {
        switch outcome {
        case .accepted, .ignoredWhileDisabled: return
        case .skippedBacklog(let first): if first { FileHandle.standardError.write(Data("logqueue: skipped\n".utf8)) }
        case .wakes: blackHole(true)
        }
    }

    /// A queue entry as large as the intake's (`IntakeItem`, 160 bytes, as long as the queue
    /// may still hold a whole event: before `configure`, or with the log full), of which a
    /// logged event fills only its sequence number.
    private enum Entry: Sendable {
        case logged(UInt64)
        case inMemory(name: String, properties: [String: PropertyValue], rest: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64))
    }

    // MARK: The log as the queue

    private struct SpikeState: Sendable {
        var ids = EventIDGenerator()
        var file: IntakeLogFile
        /// What the queue would hold per event: the record's sequence number.
        var entries: [Entry] = []
        var wakePending = false
        var counters = Counters()
        var lastSequence: UInt64 = 0
    }

    @inline(never)
    private static func pacedQueue(_ state: Locked<SpikeState>, calls: Int) -> [UInt32] {
        let wallClock = SystemWallClock()
        var samples = [UInt32](repeating: 0, count: calls)
        for seq in 0..<roundSize { spikeTrack(state, wallClock, BenchEvent.name, BenchEvent.properties(seq)) }
        var seq = roundSize
        var done = 0
        while done < calls {
            // The journal caught up: every record is released, the queue drained.
            state.withLock { state in
                state.file.release(through: state.lastSequence)
                state.entries.removeAll(keepingCapacity: true)
                state.wakePending = false
                state.counters.drained()
            }
            let count = min(roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                spikeTrack(state, wallClock, BenchEvent.name, properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        return samples
    }

    /// The call as it would be with the log as the queue: no `Event` queued, no memory cost
    /// estimated (the record's size stands for it); the task scope read, the flags, counters and
    /// backlog rule, and the outcome switched on after the lock, as today's call.
    @inline(never)
    private static func spikeTrack(_ state: Locked<SpikeState>, _ wallClock: SystemWallClock, _ name: String, _ properties: [String: PropertyValue]) {
        let now = wallClock.nowMilliseconds
        let scope = Scope.current
        let outcome = state.withLock { state -> Outcome in
            guard state.counters.accepting else { return .ignoredWhileDisabled }
            let id = state.ids.next(milliseconds: now)
            // A scope's device id or properties would be written too; the bench has none.
            guard scope == nil, let room = state.file.beginUnmeasured(),
                  let written = IntakeRecordCodec.writeLiveEvent(name: name, id: id, timestamp: now, properties: properties, at: room.start, end: room.end) else {
                return .ignoredWhileDisabled
            }
            // The backlog's rule on the record's size, before the record is committed.
            guard state.counters.admit(bytes: written) else { return .skippedBacklog(first: state.counters.skipped == 1) }
            guard case .written(let sequence) = state.file.finishUnmeasured(kind: 1, payloadCount: written) else { return .ignoredWhileDisabled }
            state.lastSequence = sequence
            state.entries.append(.logged(sequence))
            guard !state.wakePending else { return .accepted }
            state.wakePending = true
            return .wakes
        }
        report(outcome)
    }

    // MARK: The spike with a commit that computes no checksum

    /// The log-as-queue state over a ring of its own whose commit stores the record's header and
    /// its marker but no checksum (the same ``IntakeLogRing``, the same slot layout).
    private struct UnsummedState: Sendable {
        /// One `MAP_SHARED` mapping, as an address (a pointer is not `Sendable`); never unmapped
        /// (the process ends after the benchmarks).
        let address: UInt
        var ring: IntakeLogRing
        var ids = EventIDGenerator()
        var nextSequence: UInt64 = 1
        var lastSequence: UInt64 = 0
        var entries: [Entry] = []
        var wakePending = false
        var counters = Counters()
        /// Whether the commit computes ``foldedMultiplySum(_:count:)`` (a candidate cheaper
        /// checksum) before the marker.
        var sums = false

        init?(path: String, slotCount: Int) {
            let size = IntakeLogFormat.fileSize(slotCount: slotCount)
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            guard ftruncate(descriptor, off_t(size)) == 0,
                  let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else { return nil }
            address = UInt(bitPattern: base)
            ring = IntakeLogRing(slotCount: slotCount)
        }
    }

    @inline(never)
    private static func pacedUnsummed(_ state: Locked<UnsummedState>, calls: Int) -> [UInt32] {
        let wallClock = SystemWallClock()
        var samples = [UInt32](repeating: 0, count: calls)
        for seq in 0..<roundSize { unsummedTrack(state, wallClock, BenchEvent.name, BenchEvent.properties(seq)) }
        var seq = roundSize
        var done = 0
        while done < calls {
            state.withLock { state in
                state.ring.release(through: state.lastSequence)
                state.entries.removeAll(keepingCapacity: true)
                state.wakePending = false
                state.counters.drained()
            }
            let count = min(roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                unsummedTrack(state, wallClock, BenchEvent.name, properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        return samples
    }

    @inline(never)
    private static func unsummedTrack(_ state: Locked<UnsummedState>, _ wallClock: SystemWallClock, _ name: String, _ properties: [String: PropertyValue]) {
        let now = wallClock.nowMilliseconds
        let scope = Scope.current
        let outcome = state.withLock { state -> Outcome in
            guard state.counters.accepting else { return .ignoredWhileDisabled }
            let id = state.ids.next(milliseconds: now)
            let room = min(state.ring.roomAtHead, IntakeLogFormat.maxRecordSlots)
            guard scope == nil, room > 0, let slots = UnsafeMutableRawPointer(bitPattern: state.address + UInt(IntakeLogFormat.headerSize)) else {
                return .ignoredWhileDisabled
            }
            let at = slots + state.ring.head * IntakeLogFormat.slotSize
            at.storeBytes(of: UInt32(0), as: UInt32.self)
            guard let written = IntakeRecordCodec.writeLiveEvent(
                name: name, id: id, timestamp: now, properties: properties,
                at: at + IntakeLogFormat.recordHeaderSize, end: at + room * IntakeLogFormat.slotSize
            ) else { return .ignoredWhileDisabled }
            guard state.counters.admit(bytes: written) else { return .skippedBacklog(first: state.counters.skipped == 1) }
            let sequence = state.nextSequence
            let recordSlots = IntakeLogFormat.slots(forPayload: written)
            guard state.ring.claimAtHead(slots: recordSlots, sequence: sequence) else { return .ignoredWhileDisabled }
            state.nextSequence += 1
            // The header, then the marker; no checksum.
            at.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
            at.storeBytes(of: UInt32(written).littleEndian, toByteOffset: 16, as: UInt32.self)
            at.storeBytes(of: UInt16(recordSlots).littleEndian, toByteOffset: 20, as: UInt16.self)
            at.storeBytes(of: UInt8(1), toByteOffset: 22, as: UInt8.self)
            at.storeBytes(of: UInt8(0), toByteOffset: 23, as: UInt8.self)
            if state.sums {
                at.storeBytes(of: foldedMultiplySum(UnsafeRawPointer(at + 8), count: IntakeLogFormat.recordHeaderSize - 8 + written).littleEndian, toByteOffset: 4, as: UInt32.self)
            }
            at.storeBytes(of: IntakeLogFormat.marker.littleEndian, as: UInt32.self)
            state.lastSequence = sequence
            state.entries.append(.logged(sequence))
            guard !state.wakePending else { return .accepted }
            state.wakePending = true
            return .wakes
        }
        report(outcome)
    }

    /// A candidate checksum for a later format version, measured here only: each 16 bytes are
    /// two words XORed with constants and multiplied into 128 bits, whose halves are folded
    /// into the sum (xxh3's mid-size mixing); the length and a finalizer at the end. One
    /// multiply per 16 bytes instead of four, and no chain of multiplies through the input.
    @inline(__always)
    static func foldedMultiplySum(_ base: UnsafeRawPointer, count: Int) -> UInt32 {
        var sum: UInt64 = 0x9E37_79B9_7F4A_7C15
        var index = 0
        var key: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        while index + 16 <= count {
            let low = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ key
            let high = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)) ^ (key &+ 0x1656_67B1_9E37_79F9)
            let product = low.multipliedFullWidth(by: high)
            sum &+= product.high ^ product.low
            key &+= 0x9FB2_1C65_1E98_DF25
            index += 16
        }
        var last: (UInt64, UInt64) = (0, 0)
        let remaining = count - index
        if remaining > 0 {
            // The last 16 bytes of the whole (a record always has more than 16).
            last = (
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)),
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            )
        }
        let product = (last.0 ^ key).multipliedFullWidth(by: last.1 ^ 0xFF51_AFD7_ED55_8CCD)
        sum &+= product.high ^ product.low
        var hash = sum ^ UInt64(count) &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    // MARK: The spike without the commit: encoded into a buffer of its own

    private struct EncodeState: Sendable {
        var ids = EventIDGenerator()
        /// Where events are encoded, one after another, as in the ring (4 KiB per round of
        /// records would do; 1 MiB keeps a round of 4,000 in place).
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var used = 0
        var entries: [Entry] = []
        var wakePending = false
        var counters = Counters()
    }

    @inline(never)
    private static func pacedEncode(_ state: Locked<EncodeState>, calls: Int) -> [UInt32] {
        let wallClock = SystemWallClock()
        var samples = [UInt32](repeating: 0, count: calls)
        var seq = 0
        var done = 0
        while done < calls {
            state.withLock { state in
                state.used = 0
                state.entries.removeAll(keepingCapacity: true)
                state.wakePending = false
                state.counters.drained()
            }
            let count = min(roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                encodeTrack(state, wallClock, BenchEvent.name, properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        return samples
    }

    @inline(never)
    private static func encodeTrack(_ state: Locked<EncodeState>, _ wallClock: SystemWallClock, _ name: String, _ properties: [String: PropertyValue]) {
        let now = wallClock.nowMilliseconds
        let scope = Scope.current
        let outcome = state.withLock { state -> Outcome in
            guard state.counters.accepting else { return .ignoredWhileDisabled }
            let id = state.ids.next(milliseconds: now)
            let used = state.used
            let written = state.buffer.withUnsafeMutableBytes { raw in
                IntakeRecordCodec.writeLiveEvent(name: name, id: id, timestamp: now, properties: properties, at: raw.baseAddress! + used, end: raw.baseAddress! + raw.count)
            }
            guard scope == nil, let written else { return .ignoredWhileDisabled }
            guard state.counters.admit(bytes: written) else { return .skippedBacklog(first: state.counters.skipped == 1) }
            state.used += written
            state.entries.append(.logged(UInt64(state.used)))
            guard !state.wakePending else { return .accepted }
            state.wakePending = true
            return .wakes
        }
        report(outcome)
    }

    // MARK: The floor: the same call without the log

    private struct FloorState: Sendable {
        var ids = EventIDGenerator()
        var entries: [Entry] = []
        var wakePending = false
        var counters = Counters()
    }

    @inline(never)
    private static func pacedFloor(_ state: Locked<FloorState>, calls: Int) -> [UInt32] {
        let wallClock = SystemWallClock()
        var samples = [UInt32](repeating: 0, count: calls)
        var seq = 0
        var done = 0
        while done < calls {
            state.withLock { state in
                state.entries.removeAll(keepingCapacity: true)
                state.wakePending = false
                state.counters.drained()
            }
            let count = min(roundSize, calls - done)
            for index in done..<(done + count) {
                let properties = BenchEvent.properties(seq)
                let start = Measure.now()
                floorTrack(state, wallClock, BenchEvent.name, properties)
                let end = Measure.now()
                samples[index] = UInt32(clamping: end &- start)
                seq += 1
            }
            done += count
        }
        return samples
    }

    @inline(never)
    private static func floorTrack(_ state: Locked<FloorState>, _ wallClock: SystemWallClock, _ name: String, _ properties: [String: PropertyValue]) {
        let now = wallClock.nowMilliseconds
        let scope = Scope.current
        let outcome = state.withLock { state -> Outcome in
            guard state.counters.accepting, scope == nil else { return .ignoredWhileDisabled }
            let id = state.ids.next(milliseconds: now)
            guard state.counters.admit(bytes: 190) else { return .skippedBacklog(first: state.counters.skipped == 1) }
            state.entries.append(.logged(id.uuid.15 == 0 ? 1 : UInt64(state.counters.tracked)))
            guard !state.wakePending else { return .accepted }
            state.wakePending = true
            return .wakes
        }
        report(outcome)
    }

    @inline(never)
    private static func blackHole(_ value: Bool) {}
}
