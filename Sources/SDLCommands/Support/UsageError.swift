/// A command line that cannot work: what was wrong, and what to type instead. Exit status 64.
package struct UsageError: Error, Sendable, Equatable {
    /// What was wrong, as one sentence.
    package var problem: String
    /// What to type instead (a corrected command, or where to read more).
    package var hint: String

    /// Creates the error.
    /// - Parameters:
    ///   - problem: What was wrong.
    ///   - hint: What to type instead.
    package init(_ problem: String, hint: String) {
        self.problem = problem
        self.hint = hint
    }

    /// Writes the error to standard error in the form every command uses.
    /// - Parameters:
    ///   - command: The command's name, for example `sdl send`.
    ///   - console: Where to write.
    /// - Returns: ``ExitCode/usage``.
    func report(as command: String, to console: any Console) -> Int32 {
        console.err("\(command): \(problem)")
        console.err("  \(hint)")
        return ExitCode.usage
    }
}
