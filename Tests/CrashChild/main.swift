#if os(Linux) && canImport(Glibc)
import Glibc
import SimpleDataLogs

// A child process for the crash-capture tests.
//
//   CrashChild <mode> <folder|none>
//
// creates a record file in <folder> as the SDK does (`crash-<uuid>.record`, locked), installs the
// fatal-signal recorder writing to it (with `none`, nothing: the control child), prints
// "installed" or "control", then crashes as <mode> says:
//   fatalError    fatalError("boom")                       SIGILL on x86_64, SIGTRAP on arm64
//   forceUnwrap   a force-unwrapped nil                    same
//   overflow      an Int overflow                          same
//   segv          a write through a bad pointer            SIGSEGV
//   stackOverflow unbounded recursion                      SIGSEGV, handled on the alternate stack
//   abort         abort()                                  SIGABRT
//   exception     writes an exception record through the recorder, then abort(): what Apple's
//                 uncaught-exception handler and the runtime do   SIGABRT
//   exit          exits 0 without crashing (the record stays empty)

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// Kept opaque so the optimizer cannot fold the crashes away.
@inline(never) func opaque<T>(_ value: T) -> T { value }

@inline(never) func recurse(_ depth: Int) -> Int {
    var frame = (depth, depth, depth, depth)
    return withUnsafeMutableBytes(of: &frame) { opaque($0.count) } + recurse(depth + 1) + opaque(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 else {
    say("usage: CrashChild fatalError|forceUnwrap|overflow|segv|stackOverflow|abort|exception|exit <folder|none>")
    exit(64)
}
if arguments[1] != "none" {
    let fileSystem = PosixFileSystem()
    guard let file = try? CrashRecordFiles.create(in: arguments[1], fileSystem: fileSystem),
          FatalSignalRecorder.install(recordDescriptor: file.descriptor) else {
        say("install failed")
        exit(65)
    }
    // A second install in the same process is refused; its file is discarded as the SDK does.
    let second = try? CrashRecordFiles.create(in: arguments[1], fileSystem: fileSystem)
    let secondInstalled = second.map { FatalSignalRecorder.install(recordDescriptor: $0.descriptor) } ?? false
    if !secondInstalled { second?.discard() }
    say(secondInstalled ? "second install succeeded" : "installed")
} else {
    say("control")
}

switch arguments[0] {
case "fatalError":
    fatalError("boom")
case "forceUnwrap":
    let value: Int? = opaque(nil)
    say("\(value!)")
case "overflow":
    let value = opaque(Int.max)
    say("\(value + opaque(1))")
case "segv":
    let pointer = UnsafeMutablePointer<Int>(bitPattern: opaque(16))!
    pointer.pointee = 42
case "stackOverflow":
    say("\(recurse(0))")
case "abort":
    abort()
case "exception":
    let written = FatalSignalRecorder.recordException(
        name: "NSInvalidArgumentException", reason: "-[NSNull length]: unrecognized selector sent to instance 0x1f2e3d4c5b6a",
        symbols: ["0   CoreFoundation   0x0000000180a3c2ec __exceptionPreprocess + 176", "1   MyApp   0x0000000100003f20 main + 32"]
    )
    say(written ? "exception recorded" : "exception not recorded")
    abort()
case "exit":
    exit(0)
default:
    say("unknown mode \(arguments[0])")
    exit(64)
}
say("did not crash")
exit(1)
#else
// The fatal-signal recorder is Linux-only; on other platforms this child does nothing.
print("CrashChild runs on Linux only")
#endif
