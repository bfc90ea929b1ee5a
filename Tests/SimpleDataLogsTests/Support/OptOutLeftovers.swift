import Foundation
@testable import SimpleDataLogs
import SimpleDataLogsTesting

/// What an opt-out may leave in an outbox folder: the area's lock and owner files, and this run's
/// intake log (on by default, decision 0045), zeroed of every event it held.
enum OptOutLeftovers {
    /// The files under `path`, relative, without the intake logs in its root.
    static func files(under path: String) -> [String] {
        JournalReader.files(under: path).filter { !isRootIntakeLog($0) }
    }

    /// The event records the intake logs in the root of `path` still hold, released or not: an
    /// opt-out must leave none readable.
    static func loggedEvents(under path: String) -> Int {
        JournalReader.files(under: path).filter(isRootIntakeLog).reduce(0) { count, name in
            guard let bytes = FileManager.default.contents(atPath: path + "/" + name),
                  case .success(let contents) = IntakeLogFormat.decode(Array(bytes)) else { return count }
            return count + contents.records.filter { $0.kind == IntakeRecordCodec.Kind.event.rawValue }.count
        }
    }

    private static func isRootIntakeLog(_ name: String) -> Bool {
        !name.contains("/") && name.hasPrefix("intake-") && name.hasSuffix(".log")
    }
}
