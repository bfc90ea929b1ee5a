import Testing
@testable import SimpleDataLogs

@Suite("Crash reason redaction", .stuckTestLimit)
struct CrashReasonRedactorTests {
    /// Realistic reasons and what `.standard` (without its 200-character cut) makes of them.
    static let table: [(reason: String, expected: String)] = [
        ("Fatal error: boom", "Fatal error: boom"),
        ("Index out of range: 42 of 7", "Index out of range: ## of #"),
        ("Unexpectedly found nil while unwrapping an Optional value", "Unexpectedly found nil while unwrapping an Optional value"),
        ("could not open /var/mobile/Containers/Data/Application/1B2C3D4E-0000-1111-2222-333344445555/Documents/db.sqlite",
         "could not open <path>"),
        ("could not open '/home/alice/My Files/report.pdf': denied", "could not open '<path> <path>': denied"),
        ("file:///Users/bob/Library/Caches/x.json is corrupt", "<path> is corrupt"),
        ("loading file:/tmp/a.plist.", "loading <path>."),
        ("see ~/Library/Logs/app.log", "see <path>"),
        ("Sources/App/Model/Store.swift:120: precondition failed", "<path>:###: precondition failed"),
        ("user 6F9619FF-8B86-D011-B42D-00C04FC964FF not found", "user <uuid> not found"),
        ("id=6f9619ff-8b86-d011-b42d-00c04fc964ff,retry", "id=<uuid>,retry"),
        ("bad access at 0x7ffee4b3c9a0 (0X1F)", "bad access at <hex> (<hex>)"),
        ("commit 3f2a9c1e5b7d8e0f4a6b2c9d1e3f5a7b9c0d2e4f failed", "commit <hex> failed"),
        ("the word deadbeef and acceded stay, 12345678 is a number", "the word deadbeef and acceded stay, ######## is a number"),
        ("no account for alice.smith+tag@example.co.uk.", "no account for <email>."),
        ("mail bob@localhost is not an address", "mail bob@localhost is not an address"),
        ("emails first: bob@example.com/inbox", "emails first: <email><path>"),
        ("https://api.example.com/v1/users/42 returned 500", "https://api.example.com/v#/users/## returned ###"),
        ("3/4 done and/or retrying", "#/# done and/or retrying"),
        ("Zahl ٣ und ３ und 7", "Zahl # und # und #"),
        ("Fehler in /Users/jürgen/Documents/Übersicht.numbers für jürgen@example.de", "Fehler in <path> für <email>"),
        ("日本語のエラー 42 件 /tmp/ファイル.txt", "日本語のエラー ## 件 <path>"),
        ("emoji 👩‍💻 row 12", "emoji 👩‍💻 row ##"),
        ("rené@exämple.de", "<email>"),
        ("", ""),
    ]

    @Test("the standard redaction turns each realistic reason into the expected text", arguments: 0..<table.count)
    func standardTable(row: Int) {
        let (reason, expected) = Self.table[row]
        var redaction = CrashReasonRedaction.standard
        redaction.maxLength = 4_000
        #expect(CrashReasonRedactor.redact(reason, with: redaction) == expected)
    }

    @Test("with .none the reason is sent word for word")
    func noneIsVerbatim() {
        for (reason, _) in Self.table {
            #expect(CrashReasonRedactor.redact(reason, with: .none) == reason)
        }
    }

    @Test("each switch acts alone")
    func switchesAreIndependent() {
        let reason = "user 42 <bob@example.com> at /tmp/x.db id 0xff"
        let numbers = CrashReasonRedaction(shouldStripNumbers: true, shouldStripPaths: false, shouldStripEmails: false, maxLength: 4_000)
        let paths = CrashReasonRedaction(shouldStripNumbers: false, shouldStripPaths: true, shouldStripEmails: false, maxLength: 4_000)
        let emails = CrashReasonRedaction(shouldStripNumbers: false, shouldStripPaths: false, shouldStripEmails: true, maxLength: 4_000)
        #expect(CrashReasonRedactor.redact(reason, with: numbers) == "user ## <bob@example.com> at /tmp/x.db id <hex>")
        #expect(CrashReasonRedactor.redact(reason, with: paths) == "user 42 <bob@example.com> at <path> id 0xff")
        #expect(CrashReasonRedactor.redact(reason, with: emails) == "user 42 <<email>> at /tmp/x.db id 0xff")
    }

    @Test("UUIDs and hex values are replaced before digits, so no digit of them is left as #")
    func orderUUIDAndHexBeforeDigits() {
        let redacted = CrashReasonRedactor.redact("0x1f 123e4567-e89b-12d3-a456-426614174000", with: .standard)
        #expect(redacted == "<hex> <uuid>")
    }

    @Test("the standard redaction cuts at 200 characters; .none at 4,000; never more than 4,000")
    func cuts() {
        let long = String(repeating: "é", count: 5_000)
        #expect(CrashReasonRedactor.redact(long, with: .standard).count == 200)
        #expect(CrashReasonRedactor.redact(long, with: .none).count == 4_000)
        let huge = CrashReasonRedaction(shouldStripNumbers: false, shouldStripPaths: false, shouldStripEmails: false, maxLength: 1_000_000)
        #expect(CrashReasonRedactor.redact(long, with: huge).count == 4_000)
        let negative = CrashReasonRedaction(maxLength: -5)
        #expect(CrashReasonRedactor.redact("abc", with: negative) == "")
        let emoji = String(repeating: "👩‍👩‍👧‍👦", count: 300)
        #expect(CrashReasonRedactor.redact(emoji, with: .standard) == String(repeating: "👩‍👩‍👧‍👦", count: 200))
    }

    @Test("a 1 MB reason costs bounded, linear time: only its first 65,536 scalars are scanned")
    func largeReasonIsFast() {
        let reason = String(repeating: "row 42 at /var/db/x.sqlite for bob@example.com 0xdeadbeef ", count: 18_000)
        let clock = ContinuousClock()
        let elapsed = clock.measure { _ = CrashReasonRedactor.redact(reason, with: .standard) }
        // About 0.07 s in a debug build, 1.7 s under ThreadSanitizer; the bound only catches a
        // quadratic slip, not a regression of a few percent. Synchronous on one pool thread from
        // start to end, so a pool saturation cannot pause it: it needs no saturation gate.
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }
}
