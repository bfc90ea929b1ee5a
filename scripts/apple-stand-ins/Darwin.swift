// Stand-in for Darwin (Apple's C library): Glibc, re-exported, plus the Darwin-only names the SDK
// uses. POSIX calls have the same names and arguments on both. Where Darwin's C types differ in
// width or shape (`mode_t` is `UInt16`, `opendir` returns `UnsafeMutablePointer<DIR>`), the
// Glibc spelling stays: modelling them would mean re-declaring the whole C library, and the
// check keeps the Linux spelling of the two typealiases that name them (see
// scripts/check-apple-code.py, LINUX_SPELLING). Written from the Darwin man pages in Apple's
// documentation archive (fcntl(2)). Type-checked against, never run.
@_exported import Glibc

/// fcntl(2) on Darwin: `F_FULLFSYNC` (51) asks the drive to flush its own cache to the medium.
public var F_FULLFSYNC: Int32 { 51 }

/// fcntl(2) on Darwin: `F_PREALLOCATE` (42) allocates disk space for a file, described by an
/// `fstore_t`. `F_ALLOCATEALL` (4): all of it or none; `F_PEOFPOSMODE` (3): counted from the
/// physical end of the file, `fst_length` being the bytes newly wanted. (`<sys/fcntl.h>`: the
/// flags word is `unsigned int`, the position mode `int`, the rest `off_t`.)
public var F_PREALLOCATE: Int32 { 42 }
public var F_ALLOCATEALL: Int32 { 4 }
public var F_PEOFPOSMODE: Int32 { 3 }

public struct fstore_t {
    public var fst_flags: UInt32
    public var fst_posmode: Int32
    public var fst_offset: off_t
    public var fst_length: off_t
    public var fst_bytesalloc: off_t

    public init(fst_flags: UInt32, fst_posmode: Int32, fst_offset: off_t, fst_length: off_t, fst_bytesalloc: off_t) {
        self.fst_flags = fst_flags
        self.fst_posmode = fst_posmode
        self.fst_offset = fst_offset
        self.fst_length = fst_length
        self.fst_bytesalloc = fst_bytesalloc
    }
}

/// sysctl(3) on Darwin: `int sysctlbyname(const char *name, void *oldp, size_t *oldlenp,
/// void *newp, size_t newlen)`, which reads `hw.model` (the hardware model identifier).
public func sysctlbyname(
    _ name: UnsafePointer<CChar>!, _ oldp: UnsafeMutableRawPointer!, _ oldlenp: UnsafeMutablePointer<Int>!,
    _ newp: UnsafeMutableRawPointer!, _ newlen: Int
) -> Int32 {
    fatalError("stand-in")
}
