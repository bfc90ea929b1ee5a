#if os(Linux) && canImport(Glibc)
import Glibc
#endif

/// `syncfs(2)`: flushes every dirty file of one file system in a single journal commit. The
/// Glibc module does not export it (it needs `_GNU_SOURCE`), so it is found once with `dlsym`;
/// where it is missing (Apple platforms), seals fall back to one `fsync` each.
enum DiskFlush {
    typealias SyncFileSystem = @convention(c) (Int32) -> Int32

    static let syncFileSystem: SyncFileSystem? = {
        #if os(Linux) && canImport(Glibc)
        // dlsym hands back a raw pointer; glibc's syncfs is `int syncfs(int)`, and a C function
        // pointer is one pointer wide, so the cast is exact (DESIGN.md, section 11).
        return dlsym(nil, "syncfs").map { unsafeBitCast($0, to: SyncFileSystem.self) }
        #else
        return nil
        #endif
    }()
}
