/// How much of a crash reason is sent.
///
/// By default (``none``) the reason goes word for word, up to 4,000 characters. Reasons can carry
/// file paths, record ids or emails; ``standard`` removes them.
public struct CrashReasonRedaction: Sendable, Hashable {
    /// Replace every digit with `#`, and UUIDs and hex values with `<uuid>` and `<hex>`.
    public var shouldStripNumbers: Bool
    /// Replace file paths and file URLs with `<path>`.
    public var shouldStripPaths: Bool
    /// Replace email addresses with `<email>`.
    public var shouldStripEmails: Bool
    /// The longest reason sent, in characters.
    public var maxLength: Int

    /// Picks the parts to redact.
    /// - Parameters:
    ///   - shouldStripNumbers: Replace digits, UUIDs and hex values.
    ///   - shouldStripPaths: Replace file paths and file URLs.
    ///   - shouldStripEmails: Replace email addresses.
    ///   - maxLength: The longest reason sent, in characters (at most 4,000 are ever sent).
    public init(shouldStripNumbers: Bool = true, shouldStripPaths: Bool = true, shouldStripEmails: Bool = true, maxLength: Int = 200) {
        self.shouldStripNumbers = shouldStripNumbers
        self.shouldStripPaths = shouldStripPaths
        self.shouldStripEmails = shouldStripEmails
        self.maxLength = maxLength
    }

    /// The reason word for word, up to 4,000 characters (the default).
    public static let none = CrashReasonRedaction(shouldStripNumbers: false, shouldStripPaths: false, shouldStripEmails: false, maxLength: 4_000)

    /// Digits, UUIDs, hex values, paths and emails replaced, then cut at 200 characters.
    public static let standard = CrashReasonRedaction()
}
