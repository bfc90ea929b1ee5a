/// Where the process-wide crash recorder writes: one file in the outbox root of the client that
/// installed it (the first with `.crashes` autocapture), read and removed at the next launch.
enum CrashRecordLocation {
    static let fileName = "crash.record"
}
