/// The outbox folder's layout: where each kind of file lives and how it is named.
///
/// ```
/// <root>/                                   0700
///   areas/<area>/                           one per live client, flock(LOCK_EX)ed by it (AreaLock)
///     lock                                  flock(LOCK_EX) too; names the owner's pid
///     journal-<seq>.log                     the open batch, appended event by event
///     batches/<seq>-<path>-<uuid>.batch     sealed batches, sent oldest first
///     set-aside/<seq>-<path>-<uuid>.batch   batches the ingest refused (400, 415)
///     tmp/                                  batch files being sealed
///   quarantine/                             files that could not be read at all
/// ```
///
/// `<seq>` is twelve digits, so names sort by age; `<path>` is `r` for a batch sealed from a
/// journal and `r0`/`r1`… for the halves of a split, so halves sort before newer batches and the
/// left half before the right.
struct OutboxLayout: Sendable {
    let root: String

    var areasFolder: String { root + "/areas" }
    var quarantineFolder: String { root + "/quarantine" }

    func area(_ name: String) -> AreaLayout { AreaLayout(folder: areasFolder + "/" + name) }
}

/// The files of one area.
struct AreaLayout: Sendable {
    let folder: String

    var lockFile: String { folder + "/lock" }
    var batchesFolder: String { folder + "/batches" }
    var setAsideFolder: String { folder + "/set-aside" }
    var temporaryFolder: String { folder + "/tmp" }

    func journal(_ sequence: Int) -> String { folder + "/" + JournalName.journal(sequence) }
}

/// Parsing and making the file names.
enum JournalName {
    static func journal(_ sequence: Int) -> String { "journal-\(padded(sequence)).log" }

    static func journalSequence(_ name: String) -> Int? {
        guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { return nil }
        return sequence(name.dropFirst("journal-".count).dropLast(".log".count))
    }

    /// The largest sequence a name may carry: twelve digits, what `padded` writes. A larger
    /// number (`Int.max` in a hostile or corrupt name) is not a name of ours; accepting it would
    /// overflow the next sequence, which traps.
    static let maximumSequence = 999_999_999_999

    /// A sequence number as names write it: decimal digits only, at most twelve.
    private static func sequence(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    static func batch(sequence: Int, path: String, id: String) -> String { "\(padded(sequence))-\(path)-\(id).batch" }

    /// The parts of a batch file's name, or `nil` for anything else.
    static func batchParts(_ name: String) -> (sequence: Int, path: String, id: String)? {
        guard name.hasSuffix(".batch") else { return nil }
        let parts = name.dropLast(".batch".count).split(separator: "-", maxSplits: 2)
        guard parts.count == 3, let sequence = sequence(parts[0]), parts[1].first == "r",
              parts[1].allSatisfy({ $0 == "r" || $0 == "0" || $0 == "1" }) else { return nil }
        return (sequence, String(parts[1]), String(parts[2]))
    }

    static func padded(_ sequence: Int) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}
