import Foundation
import Testing
@testable import SimpleDataLogs
@testable import SDLCommands

@Suite("CLI: sdl outbox never prints a file name's control characters raw", .stuckTestLimit)
struct CLIOutboxEscapeTests {
    /// A name that retitles a terminal window (`ESC ] 0 ; … BEL`) and one that clears the screen.
    static let retitle = "\u{1B}]0;owned\u{07}"
    static let clear = "\u{1B}[2J"

    @Test("names planted in batches/, set-aside/, quarantine/ and areas/ are printed escaped: no ESC or BEL reaches the terminal")
    func plantedNames() async throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let area = fixture.area(ownerPID: deadPID)
        _ = FileManager.default.createFile(atPath: area + "/batches/000000000001-r-\(Self.retitle).batch", contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: area + "/set-aside/\(Self.clear)\u{202E}txt.batch", contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: fixture.root + "/quarantine/q\(Self.clear)", contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: fixture.root + "/areas/stray\(Self.retitle)", contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: area + "/owner", contents: Data(#"{"sdl_owner":1}"#.utf8))

        let (status, console) = await sdl("outbox", fixture.root)
        #expect(status == 0, "\(console.errors)")
        let printed = console.output + console.errors
        for control in ["\u{1B}", "\u{07}", "\u{202E}"] {
            #expect(!printed.contains(control), "a raw \(control.unicodeScalars.first!.value) reached the terminal")
        }
        #expect(printed.contains(#"000000000001-r-\x1B]0;owned\x07.batch"#), "\(printed)")
        #expect(printed.contains(#"\x1B[2J\u{202E}txt.batch"#), "\(printed)")
        #expect(printed.contains(#"q\x1B[2J"#), "\(printed)")
        #expect(printed.contains(#"stray\x1B]0;owned\x07: not a folder"#), "\(printed)")
        #expect(printed.contains("owner file unreadable (not an owner file the SDK wrote)"), "\(printed)")
    }

    @Test("the escaping is unambiguous: a backslash is doubled, printable text (accents, emoji) is kept")
    func escapingRules() {
        #expect(TerminalText.escaped(#"a\x1B"#) == #"a\\x1B"#, "a name that spells an escape is not mistaken for one")
        #expect(TerminalText.escaped("café 📦 batch") == "café 📦 batch")
        #expect(TerminalText.escaped("tab\there\u{85}\u{2028}") == #"tab\x09here\u{0085}\u{2028}"#)
    }
}
