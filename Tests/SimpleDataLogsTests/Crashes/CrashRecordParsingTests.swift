import Foundation
import Testing
@testable import SimpleDataLogs
import CSignals

@Suite("Crash record parsing", .stuckTestLimit)
struct CrashRecordParsingTests {
    static let modules = """
        module 0x55d0c0000000 0x55d0c0200000 fe:00:42 /home/alice/build/My App
        module 0x7f0000000000 0x7f0000100000 fe:00:7 /usr/lib/x86_64-linux-gnu/libc.so.6

        """

    static let complete = """
        SDLCRASH 1
        signal 4 SIGILL
        code 2
        address 0x55d0c0ffee00
        pc 0x55d0c0001234
        frame 0x55d0c0100000
        frame 0x7f0000000010
        frame 0x55d0c0001234
        frame 0x55d0c0002000
        frame 0x7f000002724a
        frame 0x1000

        """ + modules + "end\n"

    /// A symbolizer for a process that has libc mapped at another address (same file), and a
    /// different build of the app.
    static var symbolizer: CrashSymbolizer {
        CrashSymbolizer(
        currentModules: [
            .init(start: 0x7f1000000000, end: 0x7f1000100000, identity: "fe:00:7", path: "/usr/lib/x86_64-linux-gnu/libc.so.6"),
            .init(start: 0x560000000000, end: 0x560000200000, identity: "fe:00:99", path: "/home/alice/build/My App"),
        ],
        symbolName: { address in address == 0x7f100002724a ? "__libc_start_call_main" : nil }
        )
    }

    private func makeReport(_ text: String) -> CrashReport? {
        CrashRecord.parse(Array(text.utf8)).map { CrashReport(record: $0, symbolizer: Self.symbolizer) }
    }

    @Test("a complete record gives the signal, the reason and module+offset frames from the crashed instruction down")
    func complete() throws {
        let record = try #require(CrashRecord.parse(Array(Self.complete.utf8)))
        #expect(record.isComplete && record.version == 1 && record.frames.count == 6 && record.modules.count == 2)
        let report = try #require(makeReport(Self.complete))
        #expect(report.exceptionName == "SIGILL")
        #expect(report.reason == "fatal signal 4 (SIGILL), code 2, address 0x55d0c0ffee00")
        #expect(report.stack == """
            My App+0x1234
            My App+0x2000
            libc.so.6+0x2724a __libc_start_call_main
            0x1000
            """)
    }

    @Test("without the crashed instruction among the frames, every frame is kept")
    func noProgramCounter() throws {
        let text = Self.complete.replacingOccurrences(of: "pc 0x55d0c0001234", with: "pc 0x0")
        #expect(try #require(makeReport(text)).stack.split(separator: "\n").count == 6)
    }

    @Test("a record cut short keeps what was written, ignoring the cut line", arguments: [40, 80, 120, 200, 260])
    func truncated(length: Int) throws {
        let text = String(Self.complete.prefix(length))
        let record = try #require(CrashRecord.parse(Array(text.utf8)))
        #expect(!record.isComplete)
        let report = try #require(makeReport(text))
        #expect(report.exceptionName == "SIGILL")
        if length >= 40 { #expect(report.reason.hasPrefix("fatal signal 4 (SIGILL)")) }
        for line in report.stack.split(separator: "\n") { #expect(line.hasPrefix("0x") || line.contains("+0x")) }
        // A cut "frame 0x55d0c01" line must not become a frame.
        #expect(record.frames.allSatisfy { [0x55d0c0100000, 0x7f0000000010, 0x55d0c0001234, 0x55d0c0002000, 0x7f000002724a, 0x1000].contains($0) })
    }

    @Test("garbage gives a report that says the record could not be read; empty gives nil")
    func garbageAndEmpty() throws {
        let garbage = try #require(CrashRecord.parse([0xFF, 0x00, 0x0A, 0x41, 0x42, 0x0A, 0x80]).map { CrashReport(record: $0, symbolizer: Self.symbolizer) })
        #expect(garbage == CrashReport(exceptionName: "unknown", reason: "fatal signal (the crash record could not be read)", stack: ""))
        #expect(CrashRecord.parse([UInt8]()) == nil)
        let malformed = try #require(makeReport("SDLCRASH 1\nsignal x\ncode\naddress 12\nframe zz\nmodule 0x2 0x1 a b\nsignal 99 \n"))
        #expect(malformed == CrashReport(exceptionName: "signal 99", reason: "fatal signal 99 (signal 99)", stack: ""))
    }

    @Test("an exception record (Apple) round-trips its name, reason and symbols, escapes included")
    func exceptionRecord() throws {
        let text = CrashRecord.exceptionRecord(
            name: "NSInvalidArgumentException",
            reason: "-[__NSArrayM objectAtIndex:]: index 5\nbeyond \\ bounds\r",
            symbols: ["0   CoreFoundation  0x1 __exceptionPreprocess + 164", "1   libobjc.A.dylib 0x2 objc_exception_throw + 60"]
        )
        let report = try #require(makeReport(text))
        #expect(report.exceptionName == "NSInvalidArgumentException")
        #expect(report.reason == "-[__NSArrayM objectAtIndex:]: index 5\nbeyond \\ bounds\r")
        #expect(report.stack == "0   CoreFoundation  0x1 __exceptionPreprocess + 164\n1   libobjc.A.dylib 0x2 objc_exception_throw + 60")
        #expect(CrashRecord.unescape("a\\qb\\") == "a\\qb\\")
    }

    @Test("the module map keeps one entry per file with executable code")
    func moduleMap() {
        let maps = """
            55d0c0000000-55d0c0010000 r--p 00000000 fe:00 42                         /app/My App
            55d0c0010000-55d0c0100000 r-xp 00010000 fe:00 42                         /app/My App
            55d0c0100000-55d0c0200000 rw-p 00100000 fe:00 42                         /app/My App
            55d0c1000000-55d0c2000000 rw-p 00000000 00:00 0                          [heap]
            7f0000000000-7f0000100000 r--p 00000000 fe:00 9                          /usr/share/locale/data
            7f1000000000-7f1000100000 r-xp 00000000 fe:00 7                          /usr/lib/libc.so.6
            7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
            broken line
            """
        #expect(ProcessModuleMap.modules(fromMaps: maps) == [
            .init(start: 0x55d0c0000000, end: 0x55d0c0200000, identity: "fe:00:42", path: "/app/My App"),
            .init(start: 0x7f1000000000, end: 0x7f1000100000, identity: "fe:00:7", path: "/usr/lib/libc.so.6"),
        ])
        let lines = CrashRecord.moduleLines(ProcessModuleMap.modules(fromMaps: maps))
        #expect(lines == "module 0x55d0c0000000 0x55d0c0200000 fe:00:42 /app/My App\nmodule 0x7f1000000000 0x7f1000100000 fe:00:7 /usr/lib/libc.so.6\n")
    }

    #if os(Linux) && canImport(Glibc)
    @Test("takeLeftovers reads unlocked records and leaves them locked; empty ones are deleted; other names are ignored")
    func takeLeftoversFromFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-parse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fileSystem = PosixFileSystem()
        let id = UUID()
        let path = folder.appendingPathComponent("crash-\(id.uuidString.lowercased()).record").path
        let empty = folder.appendingPathComponent("crash-\(UUID().uuidString.lowercased()).record").path
        let legacy = folder.appendingPathComponent("crash.record").path
        let stranger = folder.appendingPathComponent("crash-\(UUID().uuidString).record").path // uppercase: not ours

        #expect(CrashRecordFiles.takeLeftovers(in: folder.path, fileSystem: fileSystem).isEmpty)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.complete.utf8)))
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(FileManager.default.createFile(atPath: legacy, contents: Data(Self.complete.utf8)))
        #expect(FileManager.default.createFile(atPath: stranger, contents: Data(Self.complete.utf8)))

        let taken = CrashRecordFiles.takeLeftovers(in: folder.path, fileSystem: fileSystem)
        #expect(taken.count == 2)
        #expect(!FileManager.default.fileExists(atPath: empty))
        #expect(FileManager.default.fileExists(atPath: stranger))
        let current = try #require(taken.first { $0.file.path == path })
        #expect(current.file.eventID == id, "the file's uuid is the event id")
        let report = try #require(FatalSignalRecorder.report(fromRecord: current.bytes))
        #expect(report.exceptionName == "SIGILL" && report.stack.hasPrefix("My App+0x1234"))
        #expect(CrashRecordFiles.takeLeftovers(in: folder.path, fileSystem: fileSystem).isEmpty, "taken records stay locked")
        for leftover in taken { leftover.file.discard() }
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: legacy))
    }

    @Test("the handler's number formatting matches Swift's")
    func recordWriterFormatting() {
        var buffer = [CChar](repeating: 0, count: 256)
        func text(_ count: Int) -> String { String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        for value in [0, 7, 10, 99, 100, -1, -6, Int.max, Int.min, 1_234_567_890] {
            let count = sdl_fatal_signals_format_decimal(&buffer, buffer.count, Int64(value))
            #expect(text(count) == String(value))
        }
        for value: UInt in [0, 1, 0xf, 0x10, 0x55d0c0ffee00, .max] {
            let count = sdl_fatal_signals_format_hex(&buffer, buffer.count, value)
            #expect(text(count) == String(value, radix: 16))
        }
        #expect(sdl_fatal_signals_format_decimal(&buffer, 3, Int64(Int.min)) == 3, "what does not fit is dropped")
    }
#endif
}
