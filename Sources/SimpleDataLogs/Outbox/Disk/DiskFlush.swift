#if os(Linux) && canImport(Glibc)
import Glibc
#endif

/// `sync_file_range(2)`: starts the writeback of one file's dirty pages and returns at once, so
/// that the sealer can have the device write every journal of a group before it waits for the
/// first (``FileSystem/startWriteback(_:path:)``). The Glibc module does not export it (it needs
/// `_GNU_SOURCE`), so it is found once with `dlsym`; where it is missing (Apple platforms, Musl),
/// the sealer's `fdatasync` calls start the writeback themselves, one file at a time.
///
/// Nothing here flushes more than the one file it is given: `syncfs(2)`, which the outbox used
/// before, flushed every dirty page of the host's file system, a database's beside it included.
enum DiskFlush {
    /// `int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)`.
    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// `SYNC_FILE_RANGE_WRITE`: start writing the dirty pages of the range; do not wait.
    static let writeFlag: UInt32 = 2

    static let startWriteback: SyncFileRange? = {
        #if os(Linux) && canImport(Glibc)
        // dlsym hands back a raw pointer; glibc's sync_file_range has exactly this signature on
        // 64-bit Linux (`off64_t` is `Int64`), and a C function pointer is one pointer wide, so
        // the cast is exact (DESIGN.md, section 11).
        return dlsym(nil, "sync_file_range").map { unsafeBitCast($0, to: SyncFileRange.self) }
        #else
        return nil
        #endif
    }()
}
