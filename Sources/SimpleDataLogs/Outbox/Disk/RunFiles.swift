#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import Foundation

/// What crash records and intake logs share: one file per run in the storage root, named
/// `<prefix><uuid>[-<tag>]<suffix>` and locked (`flock`) by its run for as long as it lives, taken
/// by a later launch only once it can lock it. The checks here are what make a take safe.
package enum RunFiles {
    /// The id and the destination's tag (nil when untagged) a run file's name carries, or nil for
    /// any other name.
    package static func parts(ofName name: String, prefix: String, suffix: String) -> (id: UUID, tag: String?)? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        var middle = Substring(name.dropFirst(prefix.count).dropLast(suffix.count))
        var tag: String?
        if middle.count == 36 + 1 + 16, middle.dropFirst(36).first == "-" {
            tag = String(middle.suffix(16))
            middle = middle.prefix(36)
        }
        guard middle.count == 36, middle == middle.lowercased(), let id = UUID(uuidString: String(middle)) else { return nil }
        return (id, tag)
    }

    /// The name of the run file `id` for `owner`'s destination (untagged for none).
    static func name(id: UUID, owner: AreaOwner?, prefix: String, suffix: String) -> String {
        prefix + id.uuidString.lowercased() + (owner.map { "-" + $0.tag } ?? "") + suffix
    }

    /// Where the run file at `path` goes when its run's data goes to `owner` (a rotated key):
    /// the same folder and id, `owner`'s tag. Nil when `path` names no run file of this kind.
    static func retagged(_ path: String, for owner: AreaOwner, prefix: String, suffix: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let fileName = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let (id, _) = parts(ofName: fileName, prefix: prefix, suffix: suffix) else { return nil }
        return folder + name(id: id, owner: owner, prefix: prefix, suffix: suffix)
    }

    /// Whether `path` still names the file open as `descriptor`: false once another launch took
    /// and deleted (or replaced) it between its opening and its lock.
    static func stillNames(_ descriptor: Int32, _ path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Whether `descriptor` is a regular file (not a FIFO or a device planted under a run file's
    /// name).
    static func isRegularFile(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
