/// The outbox folder's layout: where each kind of file lives and how it is named.
///
/// ```
/// <root>/                                   0700 when the SDK makes it; an existing one keeps its mode
///   areas/<area>/                           one per live client, flock(LOCK_EX)ed by it (AreaLock)
///     lock                                  flock(LOCK_EX) too; names the owner's pid
///     owner                                 the key (a fingerprint) and endpoint its events are for
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
package struct OutboxLayout: Sendable {
    let root: String

    /// The layout of the outbox folder `root`.
    package init(root: String) { self.root = root }

    /// `areas/`: one folder per client that has used the outbox.
    package var areasFolder: String { root + "/areas" }
    /// `quarantine/`: files that could not be read at all, kept, never deleted.
    package var quarantineFolder: String { root + "/quarantine" }

    /// The files of the area called `name` (`a0`, `a1`, …).
    package func area(_ name: String) -> AreaLayout { AreaLayout(folder: areasFolder + "/" + name) }
}

/// The files of one area.
package struct AreaLayout: Sendable {
    /// The area's folder, which its owner holds `flock`ed.
    package let folder: String

    /// `lock`: locked too, and names the owner's pid.
    package var lockFile: String { folder + "/lock" }
    /// `owner`: the destination its events were tracked for (``AreaOwner``); absent in areas of
    /// earlier versions and of clients that cannot send.
    package var ownerFile: String { folder + "/owner" }
    /// `batches/`: sealed batches, sent oldest first.
    package var batchesFolder: String { folder + "/batches" }
    /// `set-aside/`: batches the ingest refused, kept and not sent.
    package var setAsideFolder: String { folder + "/set-aside" }
    /// `tmp/`: batch files being sealed.
    package var temporaryFolder: String { folder + "/tmp" }

    func journal(_ sequence: Int) -> String { folder + "/" + JournalName.journal(sequence) }
}

/// Parsing and making the file names.
package enum JournalName {
    static func journal(_ sequence: Int) -> String { "journal-\(padded(sequence)).log" }

    /// The sequence of a journal's name (`journal-<seq>.log`), or `nil` for anything else.
    package static func journalSequence(_ name: String) -> Int? {
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
    package static func batchParts(_ name: String) -> (sequence: Int, path: String, id: String)? {
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
