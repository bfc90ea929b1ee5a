/// What a dead run's intake log asks the next run to replay: every call after the released mark
/// (what the journal did not yet hold), in order, resolved with that run's identity. A pure
/// value built from the file's ``IntakeLogFormat/Contents``, so every rule is tested without a
/// file or a process.
///
/// The identity in force at the mark is folded from the newest checkpoint at or below it through
/// the identity calls up to the mark (the ring keeps those records: ``IntakeLogRing``). The
/// replay is bracketed (``IntakeItem/replayBegins`` … ``IntakeItem/replayEnds``), so the
/// identity stage resolves it with the dead run's identity and then takes the live one back: a
/// replay never changes the device id or defaults of the run that replays it. A log that itself
/// held a replay (a run killed while replaying) nests: the brackets say whose identity is whose.
struct IntakeLogReplay: Sendable {
    /// The items to queue first, bracketed; empty when nothing is left to replay.
    private(set) var items: [IntakeItem] = []
    /// How many of `items` are events, and their estimated memory.
    private(set) var events = 0
    private(set) var eventBytes = 0
    /// Records after the mark that could not be used: missing from the sequence (torn, or
    /// overwritten), or whole but not decodable (another version's).
    private(set) var unreadable = 0

    /// An identity as calls left it: the device id and the default properties.
    private struct Identity {
        var deviceID: String?
        var defaults: [String: PropertyValue] = [:]

        var restoring: IntakeItem { .restoreIdentity(deviceID: deviceID, defaults: defaults) }
    }

    init() {}

    /// Plans the replay of one log's contents.
    init(_ contents: IntakeLogFormat.Contents) {
        let records = contents.records
        let mark = contents.releasedThrough
        let checkpoint = IntakeRecordCodec.Kind.checkpoint.rawValue
        // Recovery starts at the newest checkpoint at or below the mark; a log with none there
        // (nothing released yet) from its first record, with no identity.
        let start = records.lastIndex { $0.sequence <= mark && $0.kind == checkpoint } ?? 0
        var current = Identity()
        var aside: [Identity] = []
        var index = start
        var previous: UInt64?
        // Up to the mark: only the identity moves.
        while index < records.count, records[index].sequence <= mark {
            let record = records[index]
            defer { index += 1 }
            previous = record.sequence
            guard let item = IntakeRecordCodec.decode(record.payload) else { continue }
            Self.fold(item, into: &current, aside: &aside)
        }
        guard index < records.count else { return }
        // The replay opens with the brackets the mark was inside, then the identity at the mark.
        items.append(.replayBegins)
        for kept in aside {
            items.append(kept.restoring)
            items.append(.replayBegins)
        }
        items.append(current.restoring)
        var depth = 1 + aside.count
        for record in records[index...] {
            if let previous, record.sequence > previous + 1 { unreadable += Int(record.sequence - previous - 1) }
            previous = record.sequence
            guard let item = IntakeRecordCodec.decode(record.payload) else {
                unreadable += 1
                continue
            }
            switch item {
            case .replayBegins:
                depth += 1
            case .replayEnds:
                // Never the replay's own outer bracket: a stray end would let the dead run's
                // calls change the live identity.
                guard depth > 1 else { continue }
                depth -= 1
            case .event(let event):
                events += 1
                eventBytes += event.memoryCost
            default:
                break
            }
            items.append(item)
        }
        items += repeatElement(.replayEnds, count: depth)
    }

    /// Joins another log's replay after this one (each keeps its brackets).
    mutating func append(_ other: IntakeLogReplay) {
        items += other.items
        events += other.events
        eventBytes += other.eventBytes
        unreadable += other.unreadable
    }

    /// What `item` does to the identity, by the identity stage's rules for order.
    private static func fold(_ item: IntakeItem, into current: inout Identity, aside: inout [Identity]) {
        switch item {
        case .restoreIdentity(let deviceID, let defaults):
            current = Identity(deviceID: deviceID, defaults: defaults)
        case .setDeviceID(let deviceID):
            current.deviceID = deviceID
        case .reset(let deviceID):
            current = Identity(deviceID: deviceID)
        case .setDefaultProperties(let defaults):
            current.defaults = defaults
        case .replayBegins:
            aside.append(current)
            current = Identity()
        case .replayEnds:
            if let live = aside.popLast() { current = live }
        case .event, .logged, .setEnabled, .activity, .barrier, .crashRecordHandedOver, .rotateKey:
            break
        }
    }
}
