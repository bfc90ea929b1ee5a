import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// `track()`'s path into the intake log: the event is written straight into the room at the
/// ring's head, measured as it goes (``IntakeRecordCodec/write(_:at:end:)``), and measured first
/// only when it does not fit there.
@Suite("Intake log: events written without measuring first")
struct IntakeLogUnmeasuredTests {
    static func event(_ name: String = "checkout", properties: [String: PropertyValue] = IntakeRecordCodecTests.properties) -> Event {
        var event = Event(name: name, id: UUID(), timestamp: 1_764_669_999_001, trackedAt: 1_764_669_999_001, properties: properties, origin: .live)
        event.deviceIDSource = .explicit("device-1")
        event.scopedProperties = ["request_id": "r-1"]
        return event
    }

    @Test("with room to spare the bytes are the measured encoding's; with any less room than it needs, nil, and not a byte past the end")
    func boundedWrite() {
        let event = Self.event()
        var measured: [UInt8] = []
        IntakeRecordCodec.encode(.event(event), into: &measured)
        #expect(IntakeRecordCodec.size(of: event) == measured.count)
        let guardBytes = 64
        for room in [0, 1, 5, measured.count / 2, measured.count - 1, measured.count, measured.count + 1, measured.count + 300] {
            var buffer = [UInt8](repeating: 0xAB, count: room + guardBytes)
            let written = buffer.withUnsafeMutableBytes { raw in
                IntakeRecordCodec.write(event, at: raw.baseAddress!, end: raw.baseAddress! + room)
            }
            if room >= measured.count {
                #expect(written == measured.count, "room \(room)")
                #expect(Array(buffer.prefix(measured.count)) == measured, "room \(room)")
            } else {
                #expect(written == nil, "room \(room)")
            }
            #expect(buffer[room...].allSatisfy { $0 == 0xAB }, "nothing past the room's end (room \(room))")
        }
    }

    @Test("a live event written from its fields is byte for byte the record of the same event written from an Event")
    func liveEventFromFields() {
        for properties in [IntakeRecordCodecTests.properties, [:], ["k": .string(String(repeating: "é", count: 40))]] {
            let id = UUID()
            let event = Event.live(name: "checkout ✓", id: id, timestamp: 1_764_669_999_001, properties: properties)
            var fromEvent = [UInt8](repeating: 0, count: 1_024)
            var fromFields = [UInt8](repeating: 0, count: 1_024)
            let eventCount = fromEvent.withUnsafeMutableBytes { IntakeRecordCodec.write(event, at: $0.baseAddress!, end: $0.baseAddress! + $0.count) }
            let fieldsCount = fromFields.withUnsafeMutableBytes {
                IntakeRecordCodec.writeCall(
                    name: "checkout ✓", id: EventIDWords(id), timestamp: 1_764_669_999_001, trackedAt: 1_764_669_999_001, origin: .live,
                    deviceIDSource: .inherited, properties: properties, scoped: nil, at: $0.baseAddress!, end: $0.baseAddress! + $0.count
                )
            }
            #expect(eventCount != nil && fieldsCount == eventCount && fromFields == fromEvent)
            // Too little room: nil, as from an event.
            let short = fromFields.withUnsafeMutableBytes {
                IntakeRecordCodec.writeCall(
                    name: "checkout ✓", id: EventIDWords(id), timestamp: 1, trackedAt: 1, origin: .live, deviceIDSource: .inherited,
                    properties: properties, scoped: nil, at: $0.baseAddress!, end: $0.baseAddress! + (eventCount ?? 1) - 1
                )
            }
            #expect(short == nil)
        }
    }

    @Test("strings of every length from 0 to 40 bytes, ASCII and not, are copied exactly")
    func everyStringLength() {
        for length in 0...40 {
            for string in [String(repeating: "a", count: length), String(repeating: "é", count: length / 2), String(repeating: "x", count: length) + "🎉"] {
                let event = Event(name: string, id: UUID(), timestamp: 1, trackedAt: 1, properties: [string: .string(string)], origin: .live)
                var bytes: [UInt8] = []
                IntakeRecordCodec.encode(.event(event), into: &bytes)
                guard case .event(let back)? = IntakeRecordCodec.decode(bytes) else {
                    Issue.record("length \(length) did not decode")
                    continue
                }
                #expect(back.name == string && back.properties == [string: .string(string)], "length \(length)")
            }
        }
    }

    @Test("the room at the head is exactly what a claim at the head may take, through 20,000 random claims and releases")
    func roomAtHeadMatchesClaim() {
        var random = SplitMix64(seed: 20_261_204)
        var ring = IntakeLogRing(slotCount: 97)
        var sequence: UInt64 = 1
        var released: UInt64 = 0
        for _ in 0..<20_000 {
            let room = ring.roomAtHead
            let head = ring.head
            let slots = 1 + Int(random.next() % 9)
            let isCheckpoint = random.next() % 11 == 0
            if let start = ring.claim(slots: slots, sequence: sequence, isCheckpoint: isCheckpoint) {
                #expect((start == head) == (slots <= room), "a record of \(slots) with room \(room) at \(head) went to \(start)")
                sequence += 1
            } else {
                #expect(slots > room, "refused \(slots) with room \(room)")
            }
            if random.next() % 3 == 0, released + 1 < sequence {
                released += 1 + random.next() % (sequence - released - 1)
                ring.release(through: released)
            }
        }
    }

    @Test("a claim at the head leaves the ring as a claim would, whenever it fits there, and changes nothing when it does not, through 20,000 random claims and releases")
    func claimAtHeadIsClaim() {
        var random = SplitMix64(seed: 20_261_205)
        var ring = IntakeLogRing(slotCount: 97)
        var sequence: UInt64 = 1
        var released: UInt64 = 0
        for _ in 0..<20_000 {
            let slots = 1 + Int(random.next() % 9)
            var atHead = ring
            var claimed = ring
            if atHead.claimAtHead(slots: slots, sequence: sequence) {
                #expect(claimed.claim(slots: slots, sequence: sequence) == ring.head)
                #expect(atHead == claimed, "a claim of \(slots) at \(ring.head)")
            } else {
                #expect(atHead == ring && slots > ring.roomAtHead, "refused \(slots) with room \(ring.roomAtHead)")
            }
            // Checkpoints and claims that wrap to slot 0 go through `claim`, as in the log.
            if ring.claim(slots: slots, sequence: sequence, isCheckpoint: random.next() % 11 == 0) != nil { sequence += 1 }
            if random.next() % 3 == 0, released + 1 < sequence {
                released += 1 + random.next() % (sequence - released - 1)
                ring.release(through: released)
            }
        }
    }

    @Test("events near the end of the ring go to slot 0 and read back whole; one of more than 8 MiB is not logged, and nothing traps")
    func wrapAndOversize() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        var failure: String?
        let path = directory.path + "/intake.log"
        let file = try #require(IntakeLogFile.create(at: path, slotCount: 64, firstSequence: 1, failure: &failure))
        var writer = IntakeLogWriter(file: file, slotCount: 64)
        let started = writer.start()
        #expect(started)
        var events: [UUID: Event] = [:]
        // Events of 1 to 3 slots, released 6 records behind: many laps, each end of the ring met
        // by a record that does not fit before it.
        for index in 0..<400 {
            let event = Self.event("e\(index)", properties: ["pad": .string(String(repeating: "p", count: index % 300))])
            let appended = writer.append(event: event)
            #expect(appended, "append \(index)")
            events[event.id] = event
            if let last = writer.lastSequence, last > 6 { writer.release(through: last - 6) }
        }
        let contents = try IntakeLogFormat.decode(Array(Data(contentsOf: URL(fileURLWithPath: path)))).get()
        let unreleased = contents.unreleased.compactMap { IntakeRecordCodec.decode($0.payload) }
        #expect(unreleased.count >= 6)
        for item in unreleased {
            guard case .event(let back) = item, let original = events[back.id] else { continue }
            #expect(back.name == original.name && back.properties == original.properties)
        }
        let huge = Self.event("huge", properties: ["blob": .string(String(repeating: "x", count: 9 << 20))])
        let hugeLogged = writer.append(event: huge)
        #expect(!hugeLogged, "not logged: more than a record can span")
        let afterLogged = writer.append(event: Self.event("after"))
        #expect(afterLogged, "the next call is logged")
        writer.close()
    }

    @Test("a record that would span the whole of a 65,536-slot log (more than its header can count) is refused as full, not a trap")
    func recordOfEverySlot() throws {
        let directory = try TemporaryDirectory.made()
        defer { directory.remove() }
        var failure: String?
        var file = try #require(IntakeLogFile.create(at: directory.path + "/intake.log", slotCount: 65_536, firstSequence: 1, failure: &failure))
        let everySlot = [UInt8](repeating: 7, count: 65_536 * IntakeLogFormat.slotSize - IntakeLogFormat.recordHeaderSize)
        #expect(IntakeLogFormat.slots(forPayload: everySlot.count) == 65_536)
        #expect(file.append(kind: 1, payload: everySlot) == .full)
        #expect(file.append(kind: 1, payload: [1, 2, 3]) == .written(1))
        file.close()
    }
}
