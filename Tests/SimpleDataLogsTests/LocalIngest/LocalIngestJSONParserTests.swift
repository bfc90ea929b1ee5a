import Testing
@testable import SimpleDataLogsTesting
import SDLJSON

@Suite("The local ingest's JSON parser", .stuckTestLimit)
struct LocalIngestJSONParserTests {
    private func parse(_ text: String) -> JSONValue? {
        try? JSONParser.parse(Array(text.utf8)).get()
    }

    @Test("integers stay integers up to the signed 64-bit bounds, and beyond them are flagged")
    func integers() {
        #expect(parse("9223372036854775807") == .integer(.max))
        #expect(parse("-9223372036854775808") == .integer(.min))
        #expect(parse("9223372036854775808") == .integerOutOfRange)
        #expect(parse("-9223372036854775809") == .integerOutOfRange)
        #expect(parse("0") == .integer(0))
        #expect(parse("-0") == .integer(0))
    }

    @Test("fractions and exponents are numbers; an overflowing literal is infinite")
    func numbers() {
        #expect(parse("0.5") == .number(0.5))
        #expect(parse("1e3") == .number(1_000))
        #expect(parse("-2.5E-1") == .number(-0.25))
        if case .number(let huge) = parse("1e400") { #expect(!huge.isFinite) } else { Issue.record("1e400 not a number") }
    }

    @Test("booleans, null, strings with escapes and surrogate pairs")
    func literalsAndStrings() {
        #expect(parse("[true,false,null]") == .array([.bool(true), .bool(false), .null]))
        #expect(parse(#""a\"b\\c\/\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/\né😀"))
        #expect(parse(#"{"k":1,"k":2}"#) == .object(["k": .integer(2)]), "the last repeated key wins")
    }

    @Test("malformed documents fail without trapping", arguments: [
        "", "{", "[1,]", "{\"a\":}", "01", "1.", "-", "1e", "tru", "\"\\ud800\"", "\"\\udc00\"", "\"\\x\"",
        "\"a\u{1}\"", "{} {}", "[1 2]", "{1:2}", "\"\\u12\"", "nul",
    ])
    func malformed(text: String) {
        #expect(parse(text) == nil)
    }

    @Test("invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        #expect((try? JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]).get()) == nil)
    }

    @Test("nesting is capped, so a deep body cannot exhaust the stack")
    func depth() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(parse(deep) == nil)
        let fine = String(repeating: "[", count: 30) + String(repeating: "]", count: 30)
        #expect(parse(fine) != nil)
    }
}
