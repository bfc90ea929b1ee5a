/// The cut rules for `app_crashed` values: the ingest rejects a string over 8,192 UTF-8 bytes,
/// and one bad value would lose the whole crash, so every value is cut before it is sent.
enum CrashValueCutter {
    /// The ingest's limit for a string value (INGEST-API.md).
    static let maxValueBytes = 8_192

    /// Cuts to at most `limit` UTF-8 bytes without splitting a character.
    static func cut(_ text: String, toUTF8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            if used + size > limit { break }
            used += size
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// Cuts a stack to at most `limit` UTF-8 bytes, keeping whole lines from the top (the
    /// innermost frames matter most). A first line longer than the limit alone is cut on a
    /// character boundary rather than dropped.
    static func cutStack(_ stack: String, toUTF8Bytes limit: Int) -> String {
        guard stack.utf8.count > limit else { return stack }
        var kept: [Substring] = []
        var used = 0
        for line in stack.split(separator: "\n", omittingEmptySubsequences: false) {
            let size = line.utf8.count + (kept.isEmpty ? 0 : 1)
            if used + size > limit { break }
            kept.append(line)
            used += size
        }
        if kept.isEmpty { return cut(stack, toUTF8Bytes: limit) }
        return kept.joined(separator: "\n")
    }

    /// Cuts every path in a stack to its last component: `/usr/lib/libc.so.6+0x1f` becomes
    /// `libc.so.6+0x1f`, so a frame never carries a user name or a folder layout.
    static func stripPaths(fromStack stack: String) -> String {
        guard stack.contains("/") else { return stack }
        return stack.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: " ", omittingEmptySubsequences: false).map { word in
                // A word that ends in a slash (the division operator in a symbol) is not a path.
                guard let slash = word.lastIndex(of: "/"), word.index(after: slash) < word.endIndex else { return word }
                return word[word.index(after: slash)...]
            }.joined(separator: " ")
        }.joined(separator: "\n")
    }
}
