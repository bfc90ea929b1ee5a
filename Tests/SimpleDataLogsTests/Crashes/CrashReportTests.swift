import Testing
@testable import SimpleDataLogs

@Suite("Crash report properties and cut rules", .stuckTestLimit)
struct CrashReportTests {
    private func string(_ value: PropertyValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    @Test("the three app_crashed properties carry the report, the reason redacted as asked")
    func properties() {
        let report = CrashReport(
            exceptionName: "SIGILL",
            reason: "fatal signal 4 (SIGILL), code 2, address 0x55d0c0ffee00",
            stack: "CrashChild+0x1a2b main\nlibc.so.6+0x2724a"
        )
        let plain = report.properties(redaction: .none)
        #expect(plain.count == 3)
        #expect(string(plain["exception_name"]) == "SIGILL")
        #expect(string(plain["reason"]) == "fatal signal 4 (SIGILL), code 2, address 0x55d0c0ffee00")
        #expect(string(plain["stack"]) == "CrashChild+0x1a2b main\nlibc.so.6+0x2724a")
        #expect(string(report.properties(redaction: .standard)["reason"]) == "fatal signal # (SIGILL), code #, address <hex>")
    }

    @Test("every value is at most 8,192 UTF-8 bytes, cut on a character boundary")
    func valuesAreCutToTheIngestLimit() {
        let name = String(repeating: "é", count: 5_000) // 10,000 bytes
        let report = CrashReport(exceptionName: name, reason: String(repeating: "€", count: 3_999), stack: "")
        let values = report.properties(redaction: .none)
        let cutName = string(values["exception_name"]) ?? ""
        #expect(cutName.utf8.count == 8_192 && cutName == String(repeating: "é", count: 4_096))
        let reason = string(values["reason"]) ?? ""
        // 3,999 × 3 bytes = 11,997 bytes: under 4,000 characters but over the byte limit.
        #expect(reason.utf8.count <= 8_192 && reason.utf8.count > 8_189 && reason.allSatisfy { $0 == "€" })
    }

    @Test("a long stack keeps its top frames, whole lines only")
    func stackKeepsTopFrames() {
        let lines = (0..<1_000).map { "CrashChild+0x\(String($0, radix: 16)) $s10CrashChild7recurseyS2iF" }
        let report = CrashReport(exceptionName: "SIGSEGV", reason: "", stack: lines.joined(separator: "\n"))
        let stack = string(report.properties(redaction: .none)["stack"]) ?? ""
        #expect(stack.utf8.count <= 8_192)
        let kept = stack.split(separator: "\n").map(String.init)
        #expect(kept == Array(lines.prefix(kept.count)))
        #expect(kept.count > 100)
    }

    @Test("a single stack line longer than the limit is cut, not dropped")
    func hugeSingleLine() {
        let stack = CrashValueCutter.cutStack(String(repeating: "ü", count: 9_000), toUTF8Bytes: 8_192)
        #expect(stack == String(repeating: "ü", count: 4_096))
    }

    @Test("file paths in frames are cut to the file or module name")
    func pathsInFramesAreCut() {
        let report = CrashReport(
            exceptionName: "NSInvalidArgumentException", reason: "",
            stack: "0 /usr/lib/libc.so.6+0x1f abort\n1 /Users/alice/App.app/App 0x1000 main + 12\n2 Swift.Int./ infix"
        )
        #expect(string(report.properties(redaction: .none)["stack"]) == "0 libc.so.6+0x1f abort\n1 App 0x1000 main + 12\n2 Swift.Int./ infix")
    }

    @Test("values under every limit pass unchanged")
    func shortValuesUnchanged() {
        #expect(CrashValueCutter.cut("héllo", toUTF8Bytes: 6) == "héllo")
        #expect(CrashValueCutter.cut("héllo", toUTF8Bytes: 2) == "h")
        #expect(CrashValueCutter.cutStack("a\nb\nc", toUTF8Bytes: 3) == "a\nb")
    }
}
