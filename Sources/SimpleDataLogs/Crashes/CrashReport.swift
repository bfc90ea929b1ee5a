/// A crash of an earlier launch, as the next launch sends it in `app_crashed`.
///
/// Made by ``FatalSignalRecorder/report(fromRecord:)`` (Linux: fatal signals, which include
/// Swift traps) or, elsewhere, from the record as it stands (Apple: uncaught
/// `NSException`s only; signals are not captured on Apple). Both read the record format
/// described in ``CrashRecord``.
package struct CrashReport: Sendable, Hashable {
    /// The signal's name (`SIGILL`) or the exception's name (`NSInvalidArgumentException`).
    package var exceptionName: String
    /// What happened, e.g. `fatal signal 4 (SIGILL), code 2, address 0x55d0c0ffee00`, or the
    /// exception's reason.
    package var reason: String
    /// The call stack, innermost frame first, one frame per line (`module+0xoffset symbol`).
    package var stack: String

    /// Creates a report.
    /// - Parameters:
    ///   - exceptionName: The signal's or the exception's name.
    ///   - reason: What happened.
    ///   - stack: The frames, innermost first, one per line.
    package init(exceptionName: String, reason: String, stack: String) {
        self.exceptionName = exceptionName
        self.reason = reason
        self.stack = stack
    }

    /// The three `app_crashed` properties (INGEST-API.md), ready to send.
    ///
    /// The reason is redacted as `redaction` says and cut to its `maxLength` (never more than
    /// 4,000 characters); file paths in the stack are cut to the file or module name. Every
    /// value is then cut to 8,192 UTF-8 bytes on a character boundary, the stack at a line
    /// boundary so that it keeps its top frames, so the ingest never rejects the event.
    /// - Parameter redaction: What to remove from the reason.
    /// - Returns: `exception_name`, `reason` and `stack`.
    package func properties(redaction: CrashReasonRedaction) -> [String: PropertyValue] {
        let limit = CrashValueCutter.maxValueBytes
        return [
            "exception_name": .string(CrashValueCutter.cut(exceptionName, toUTF8Bytes: limit)),
            "reason": .string(CrashValueCutter.cut(CrashReasonRedactor.redact(reason, with: redaction), toUTF8Bytes: limit)),
            "stack": .string(CrashValueCutter.cutStack(CrashValueCutter.stripPaths(fromStack: stack), toUTF8Bytes: limit)),
        ]
    }
}
