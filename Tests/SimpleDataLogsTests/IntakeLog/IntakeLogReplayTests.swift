import Foundation
import Testing
@testable import SimpleDataLogs

/// What a dead run's log asks the next run to replay (``IntakeLogReplay``), from contents built
/// record by record: the mark, the checkpoints, the brackets, the damage.
@Suite("Intake log: the replay plan")
struct IntakeLogReplayTests {
    /// Contents holding `items` as records numbered from `first`, released through `mark`; a
    /// `restoreIdentity` outside brackets is written as the writer writes it, a checkpoint.
    static func contents(_ items: [IntakeItem], first: UInt64 = 1, mark: UInt64, skipping skipped: Set<UInt64> = []) -> IntakeLogFormat.Contents {
        var depth = 0
        var contents = IntakeLogFormat.Contents()
        contents.releasedThrough = mark
        for (offset, item) in items.enumerated() {
            let sequence = first + UInt64(offset)
            guard !skipped.contains(sequence) else { continue }
            var payload: [UInt8] = []
            IntakeRecordCodec.encode(item, into: &payload)
            var kind = IntakeRecordCodec.kind(of: item)!
            switch item {
            case .replayBegins: depth += 1
            case .replayEnds: depth -= 1
            case .restoreIdentity where depth == 0: kind = .checkpoint
            default: break
            }
            contents.records.append(.init(sequence: sequence, kind: kind.rawValue, payload: payload))
        }
        return contents
    }

    static func event(_ name: String) -> IntakeItem {
        .event(.live(name: name, id: UUID(), timestamp: 1_700_000_000_000, properties: [:]))
    }

    /// A readable form of a plan: event names, and the identity items spelled out.
    static func describe(_ items: [IntakeItem]) -> [String] {
        items.map { item in
            switch item {
            case .event(let event): event.name
            case .replayBegins: "begin"
            case .replayEnds: "end"
            case .restoreIdentity(let device, let defaults): "restore(\(device ?? "-"), \(defaults.keys.sorted().joined(separator: ",")))"
            case .setDeviceID(let device): "setDeviceID(\(device ?? "-"))"
            case .setDefaultProperties(let defaults): "setDefaults(\(defaults.keys.sorted().joined(separator: ",")))"
            case .reset(let device): "reset(\(device ?? "-"))"
            case .setEnabled(let enabled): "setEnabled(\(enabled))"
            case .activity: "activity"
            case .barrier, .crashRecordHandedOver, .rotateKey, .logged: "other"
            }
        }
    }

    @Test("everything released: nothing to replay")
    func allReleased() {
        let replay = IntakeLogReplay(Self.contents([.restoreIdentity(deviceID: nil, defaults: [:]), Self.event("a"), Self.event("b")], mark: 3))
        #expect(replay.items.isEmpty)
        #expect(replay.events == 0)
    }

    @Test("the calls after the mark, in order, bracketed, with the identity folded from the newest checkpoint at or below the mark")
    func foldsIdentityAtTheMark() {
        let items: [IntakeItem] = [
            .restoreIdentity(deviceID: "stale", defaults: ["old": .bool(true)]),   // 1: an older checkpoint
            .setDeviceID("first"),                                                   // 2
            .restoreIdentity(deviceID: "first", defaults: [:]),                      // 3: the newest at or below the mark
            .setDefaultProperties(["plan": .string("pro")]),                         // 4
            Self.event("journaled"),                                                 // 5: the mark
            Self.event("a"),                                                         // 6
            .setDeviceID("second"),                                                  // 7
            Self.event("b"),                                                         // 8
        ]
        let replay = IntakeLogReplay(Self.contents(items, mark: 5))
        #expect(Self.describe(replay.items) == ["begin", "restore(first, plan)", "a", "setDeviceID(second)", "b", "end"])
        #expect(replay.events == 2)
        #expect(replay.unreadable == 0)
    }

    @Test("a reset before the mark clears the defaults it folds; one after it is replayed as a reset")
    func resets() {
        let items: [IntakeItem] = [
            .restoreIdentity(deviceID: nil, defaults: [:]),
            .setDefaultProperties(["plan": .string("pro")]),
            .reset("after-logout"),
            Self.event("journaled"),
            .reset(nil),
            Self.event("a"),
        ]
        let replay = IntakeLogReplay(Self.contents(items, mark: 4))
        #expect(Self.describe(replay.items) == ["begin", "restore(after-logout, )", "reset(-)", "a", "end"])
    }

    @Test("nothing released yet: everything from the first record, with no identity")
    func nothingReleased() {
        let items: [IntakeItem] = [.restoreIdentity(deviceID: nil, defaults: [:]), .setDeviceID("d"), Self.event("a")]
        let replay = IntakeLogReplay(Self.contents(items, mark: 0))
        #expect(Self.describe(replay.items) == ["begin", "restore(-, )", "restore(-, )", "setDeviceID(d)", "a", "end"])
    }

    @Test("a mark inside a replay the dead run was making: the live identity it had kept aside comes back at that replay's end")
    func markInsideAReplay() {
        let items: [IntakeItem] = [
            .restoreIdentity(deviceID: nil, defaults: [:]),   // 1
            .setDeviceID("live"),                             // 2: the dead run's own identity
            .replayBegins,                                    // 3: it was replaying an older run
            .restoreIdentity(deviceID: "older", defaults: [:]), // 4
            Self.event("older-1"),                            // 5: the mark
            Self.event("older-2"),                            // 6
            .replayEnds,                                      // 7
            Self.event("live-1"),                             // 8
        ]
        let replay = IntakeLogReplay(Self.contents(items, mark: 5))
        #expect(Self.describe(replay.items) == [
            "begin", "restore(live, )", "begin", "restore(older, )", "older-2", "end", "live-1", "end",
        ])
        #expect(replay.events == 2)
    }

    @Test("a stray end never closes the replay's own bracket; missing and undecodable records are counted, the rest replayed")
    func damage() {
        var contents = Self.contents([
            .restoreIdentity(deviceID: nil, defaults: [:]),  // 1
            Self.event("journaled"),                         // 2: the mark
            .replayEnds,                                     // 3: stray
            Self.event("a"),                                 // 4
            Self.event("lost"),                              // 5: missing (torn)
            Self.event("b"),                                 // 6
        ], mark: 2, skipping: [5])
        contents.records.append(.init(sequence: 7, kind: 1, payload: [0xEE, 1, 2]))
        let replay = IntakeLogReplay(contents)
        #expect(Self.describe(replay.items) == ["begin", "restore(-, )", "a", "b", "end"])
        #expect(replay.unreadable == 2, "one missing, one undecodable")
        #expect(replay.events == 2)
    }

    @Test("two logs' replays join, each in its own brackets")
    func joins() {
        var first = IntakeLogReplay(Self.contents([.restoreIdentity(deviceID: "x", defaults: [:]), Self.event("a")], mark: 1))
        first.append(IntakeLogReplay(Self.contents([.restoreIdentity(deviceID: nil, defaults: [:]), Self.event("b")], mark: 1)))
        #expect(Self.describe(first.items) == ["begin", "restore(x, )", "a", "end", "begin", "restore(-, )", "b", "end"])
        #expect(first.events == 2)
    }
}
