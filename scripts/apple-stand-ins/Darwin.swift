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
