/// The exit statuses every `sdl` command uses, from `sysexits.h` where one fits, so scripts and
/// CI jobs can tell "try again later" from "fix the command line".
package enum ExitCode {
    /// Done: for `sdl send`, the ingest accepted every waiting event.
    package static let success: Int32 = 0
    /// Something failed that retrying will not fix (a port in use, an event the ingest rejected).
    package static let failure: Int32 = 1
    /// The command line is wrong (`EX_USAGE`); the message says what to type instead.
    package static let usage: Int32 = 64
    /// A folder named on the command line does not exist (`EX_NOINPUT`).
    package static let noInput: Int32 = 66
    /// `sdl send`: the time limit passed before the new event was written (the SDK was still
    /// recovering a large storage folder): the event is not stored; earlier events are safe
    /// (`EX_UNAVAILABLE`).
    package static let notWritten: Int32 = 69
    /// Not done yet, but nothing is lost (`EX_TEMPFAIL`): `sdl send` left the event on disk for
    /// a later run; `sdl outbox requeue` found the outbox in use.
    package static let tryAgainLater: Int32 = 75
}
