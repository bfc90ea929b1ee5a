import Foundation
import SimpleDataLogs

/// `OutboxCrashChild intake-log <path> <threads>`: appends records to an intake log at <path>
/// from <threads> threads at once, as fast as they can, releasing all but the newest
/// ``heldWindow`` (a journal that trails the intake), and prints "appended N" each time the
/// appends that returned reach another 5,000, until the parent kills it.
///
/// Each payload is self-describing, so the parent can check every record it reads back:
/// `[thread][counter, 8 bytes LE][filler of counter % 200 bytes, each UInt8(truncatingIfNeeded: counter)]`.
func runIntakeLogMode(path: String, threads: Int) -> Never {
    var failure: String?
    guard let file = IntakeLogFile.create(at: path, slotCount: 16_384, firstSequence: 1, failure: &failure) else {
        FileHandle.standardError.write(Data("no intake log: \(failure ?? "?")\n".utf8))
        exit(70)
    }
    // The SDK keeps its log under the intake's lock; the threads here share it under one too.
    let log = Locked(file)
    let returned = Locked(0)
    for thread in 0..<threads {
        Thread.detachNewThread {
            var counter: UInt64 = 0
            var payload: [UInt8] = []
            while true {
                counter += 1
                payload.removeAll(keepingCapacity: true)
                payload.append(UInt8(thread))
                withUnsafeBytes(of: counter.littleEndian) { payload.append(contentsOf: $0) }
                payload.append(contentsOf: repeatElement(UInt8(truncatingIfNeeded: counter), count: Int(counter % 200)))
                let appended = log.withLock { log in
                    let appended = log.append(kind: 1, payload: payload)
                    if case .written(let sequence) = appended, sequence > intakeLogHeldWindow { log.release(through: sequence - intakeLogHeldWindow) }
                    return appended
                }
                switch appended {
                case .written:
                    returned.withLock { $0 += 1 }
                case .full:
                    counter -= 1  // not written: the same counter again
                case .closed:
                    return
                }
            }
        }
    }
    var printed = 0
    while true {
        let now = returned.withLock { $0 }
        if now >= printed + 5_000 {
            printed = now
            FileHandle.standardOutput.write(Data("appended \(now)\n".utf8))
        }
        usleep(200)
    }
}

/// How many of the newest records the child keeps unreleased.
let intakeLogHeldWindow: UInt64 = 2_000
