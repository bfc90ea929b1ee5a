import Testing
@testable import SimpleDataLogs

@Suite("Rules: the ingest key", .stuckTestLimit)
struct IngestKeyTests {
    @Test("well formed: a prefix and at least one character after it", arguments: [
        ("sdl_pub_a", IngestKey.Kind?.some(.publishable)), ("sdl_sec_0123456789abcdef", .secret),
        ("sdl_pub_", nil), ("sdl_sec_", nil), ("sdl_pk_abc", nil), ("", nil), ("SDL_PUB_abc", nil), (" sdl_pub_abc", nil),
    ])
    func kinds(key: String, kind: IngestKey.Kind?) {
        #expect(IngestKey.kind(of: key) == kind)
    }

    @Test("a key is never shown in full: at most 12 characters, always 4 fewer than the key", arguments: [
        "sdl_pub_0123456789abcdef", "sdl_pub_abc", "sdl_sec_x", "abc", "",
    ])
    func redaction(key: String) {
        let shown = IngestKey.redacted(key)
        #expect(shown.hasSuffix("…"))
        let visible = shown.dropLast()
        #expect(visible.count <= 12 && visible.count <= max(0, key.count - 4))
        #expect(key.isEmpty || !shown.contains(key))
    }
}
