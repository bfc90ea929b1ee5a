/// Removes what a ``CrashReasonRedaction`` asks for from a crash reason, then cuts it.
///
/// A pure function over Unicode scalars, with no regular-expression engine: each rule is one
/// linear pass. The passes run in this order, because each one must see text the earlier ones
/// have not broken up:
///
/// 1. emails → `<email>` (before paths: `bob@example.com/x` is an address, not a path);
/// 2. paths and `file:` URLs → `<path>` (before numbers, so a path full of ids becomes one token);
/// 3. UUIDs → `<uuid>`, then hex values (`0x…`, and runs of 8 or more hex digits mixing letters
///    and digits) → `<hex>` (before digits, or `0x1f` would become `#x#f`);
/// 4. every decimal digit (any script) → `#`;
/// 5. the result is cut to `maxLength` characters, and never more than 4,000.
///
/// ```swift
/// CrashReasonRedactor.redact("no row 42 for bob@example.com in /var/db/app.sqlite", with: .standard)
/// // "no row ## for <email> in <path>"
/// ```
package enum CrashReasonRedactor {
    /// The longest reason ever sent, in characters, whatever the redaction says.
    package static let maxReasonLength = 4_000

    /// Reasons are looked at up to this many scalars, so a huge reason costs bounded time. It is
    /// far above what is sent, so tokens that straddle the final cut are still seen whole.
    static let maxScannedScalars = 65_536

    /// Redacts and cuts a crash reason.
    /// - Parameters:
    ///   - reason: The reason as the crash gave it.
    ///   - redaction: What to remove, and the longest result.
    /// - Returns: The reason with the chosen parts replaced, at most
    ///   `min(redaction.maxLength, 4_000)` characters long.
    package static func redact(_ reason: String, with redaction: CrashReasonRedaction) -> String {
        var scalars = Array(reason.unicodeScalars.prefix(maxScannedScalars))
        if redaction.shouldStripEmails { scalars = replaceEmails(scalars) }
        if redaction.shouldStripPaths { scalars = replacePaths(scalars) }
        if redaction.shouldStripNumbers {
            scalars = replaceUUIDs(scalars)
            scalars = replaceHex(scalars)
            scalars = replaceDigits(scalars)
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        let limit = max(0, min(redaction.maxLength, maxReasonLength))
        return text.count > limit ? String(text.prefix(limit)) : text
    }

    // MARK: - Emails

    /// `local@domain.tld`: the local part is letters, digits (any script) and `._%+-`; the domain
    /// has a dot and ends in at least two letters.
    static func replaceEmails(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count)
        var index = 0
        var copiedUpTo = 0
        while index < scalars.count {
            guard scalars[index] == "@" else { index += 1; continue }
            var start = index
            while start > copiedUpTo, isEmailLocal(scalars[start - 1]) { start -= 1 }
            var end = index + 1
            while end < scalars.count, isDomain(scalars[end]) { end += 1 }
            // A sentence's final dot or a hyphen is not part of the domain.
            while end > index + 1, scalars[end - 1] == "." || scalars[end - 1] == "-" { end -= 1 }
            if start < index, isDomainName(scalars[(index + 1)..<end]) {
                output.append(contentsOf: scalars[copiedUpTo..<start])
                output.append(contentsOf: "<email>".unicodeScalars)
                copiedUpTo = end
                index = end
            } else {
                index += 1
            }
        }
        output.append(contentsOf: scalars[copiedUpTo...])
        return output
    }

    /// Letters and digits of any script (internationalized addresses), and `._%+-`.
    private static func isEmailLocal(_ scalar: Unicode.Scalar) -> Bool {
        isAlphanumeric(scalar) || "._%+-".unicodeScalars.contains(scalar)
    }

    private static func isDomain(_ scalar: Unicode.Scalar) -> Bool {
        isAlphanumeric(scalar) || scalar == "." || scalar == "-"
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// At least two labels, the last of two or more letters.
    private static func isDomainName(_ domain: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let lastDot = domain.lastIndex(of: "."), lastDot > domain.startIndex else { return false }
        let tld = domain[(lastDot + 1)...]
        return tld.count >= 2 && tld.allSatisfy { $0.properties.isAlphabetic }
    }

    // MARK: - Paths

    /// Absolute paths (`/a/b`), home paths (`~/a`), `file:` URLs, and relative paths that end in
    /// a file name with an extension (`Sources/App/main.swift`). A path runs to the next space,
    /// quote, bracket, comma, semicolon or colon; a sentence's final dot is left outside.
    /// `https://…` and other URLs are not paths and are left for the other rules.
    static func replacePaths(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let atTokenStart = index == 0 || !isPathCharacter(scalars[index - 1])
            if atTokenStart, let end = pathEnd(in: scalars, from: index) {
                output.append(contentsOf: "<path>".unicodeScalars)
                index = end
                continue
            }
            if atTokenStart, isPathCharacter(scalars[index]) {
                // A token that is not a path (a word, a URL): copy it whole, so a slash inside it
                // never starts a path.
                var end = index
                while end < scalars.count, isPathCharacter(scalars[end]) || scalars[end] == ":" && isURLSchemeEnd(scalars, end) { end += 1 }
                output.append(contentsOf: scalars[index..<end])
                index = end
                continue
            }
            output.append(scalars[index])
            index += 1
        }
        return output
    }

    /// Where the path starting at `start` ends, or nil when no path starts there.
    private static func pathEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let rest = scalars[start...]
        if hasPrefix(rest, "file:") {
            var end = start + 5
            while end < scalars.count, isPathCharacter(scalars[end]) || scalars[end] == ":" { end += 1 }
            return trimmedPathEnd(scalars, start: start, end: end)
        }
        let absolute = rest.first == "/" && rest.count > 1 && isPathCharacter(scalars[start + 1]) && scalars[start + 1] != "/"
        let home = hasPrefix(rest, "~/")
        var end = start
        while end < scalars.count, isPathCharacter(scalars[end]) { end += 1 }
        if absolute || home { return trimmedPathEnd(scalars, start: start, end: end) }
        // A relative path: a token with a slash whose last component has a file extension.
        let token = scalars[start..<end]
        guard let slash = token.lastIndex(of: "/"), slash > start, token.first != "/" else { return nil }
        let name = token[(slash + 1)...]
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return nil }
        let pathExtension = name[(dot + 1)...]
        guard (1...10).contains(pathExtension.count), pathExtension.allSatisfy(isASCIIAlphanumeric), pathExtension.contains(where: isASCIILetter) else {
            return nil
        }
        return end
    }

    /// Leaves a sentence's closing dots outside the path.
    private static func trimmedPathEnd(_ scalars: [Unicode.Scalar], start: Int, end: Int) -> Int {
        var end = end
        while end > start + 1, scalars[end - 1] == "." { end -= 1 }
        return end
    }

    /// Whether the colon at `index` ends a URL scheme (`https:` followed by `//`).
    private static func isURLSchemeEnd(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        index + 2 < scalars.count && scalars[index + 1] == "/" && scalars[index + 2] == "/"
    }

    private static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace { return false }
        return !"\"'`<>()[]{},;:|".unicodeScalars.contains(scalar)
    }

    // MARK: - UUIDs and hex

    /// `8-4-4-4-12` hex digits, either case, not inside a longer alphanumeric run.
    static func replaceUUIDs(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let groups = [8, 4, 4, 4, 12]
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            if index == 0 || !isASCIIAlphanumeric(scalars[index - 1]), let end = matchGroups(groups, in: scalars, at: index),
               end == scalars.count || !isASCIIAlphanumeric(scalars[end]) {
                output.append(contentsOf: "<uuid>".unicodeScalars)
                index = end
                continue
            }
            output.append(scalars[index])
            index += 1
        }
        return output
    }

    private static func matchGroups(_ groups: [Int], in scalars: [Unicode.Scalar], at start: Int) -> Int? {
        var index = start
        for (number, length) in groups.enumerated() {
            if number > 0 {
                guard index < scalars.count, scalars[index] == "-" else { return nil }
                index += 1
            }
            for _ in 0..<length {
                guard index < scalars.count, isHexDigit(scalars[index]) else { return nil }
                index += 1
            }
        }
        return index
    }

    /// `0x` followed by hex digits, and bare runs of 8 or more hex digits that mix letters and
    /// digits (a hash, an address without its prefix); a run of digits alone is a number, and a
    /// word like `deadbeef` or `acceded` is a word.
    static func replaceHex(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let atBoundary = index == 0 || !isASCIIAlphanumeric(scalars[index - 1])
            guard atBoundary else { output.append(scalars[index]); index += 1; continue }
            if scalars[index] == "0", index + 2 < scalars.count, scalars[index + 1] == "x" || scalars[index + 1] == "X",
               isHexDigit(scalars[index + 2]) {
                var end = index + 2
                while end < scalars.count, isHexDigit(scalars[end]) { end += 1 }
                output.append(contentsOf: "<hex>".unicodeScalars)
                index = end
                continue
            }
            var end = index
            while end < scalars.count, isHexDigit(scalars[end]) { end += 1 }
            let run = scalars[index..<end]
            if run.count >= 8, end == scalars.count || !isASCIIAlphanumeric(scalars[end]),
               run.contains(where: isASCIIDigit), run.contains(where: isASCIILetter) {
                output.append(contentsOf: "<hex>".unicodeScalars)
                index = end
                continue
            }
            output.append(scalars[index])
            index += 1
        }
        return output
    }

    // MARK: - Digits

    /// Every decimal digit, in any script (`٣`, `３`), becomes `#`.
    static func replaceDigits(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        scalars.map { $0.properties.numericType == .decimal ? "#" : $0 }
    }

    // MARK: - Character classes

    private static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool { isASCIIDigit(scalar) || isASCIILetter(scalar) }
    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        isASCIIDigit(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }

    private static func hasPrefix(_ scalars: ArraySlice<Unicode.Scalar>, _ prefix: String) -> Bool {
        scalars.starts(with: prefix.unicodeScalars)
    }
}
