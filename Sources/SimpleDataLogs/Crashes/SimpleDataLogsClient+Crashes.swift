extension SimpleDataLogsClient {
    /// At `configure`: sends the crash an earlier run recorded (as `app_crashed`, through the
    /// pipeline so it gets the device id), then, with `.crashes`, installs the process-wide
    /// recorder for this run.
    ///
    /// Runs on the caller's thread, once, because the recorder's alternate signal stack belongs
    /// to the installing thread (usually the main thread, which is where stack overflows happen),
    /// and because the old record must be read before the new install empties the file. The
    /// blocking work is a folder check and one small file read: a deliberate exception at launch.
    /// The first client to install records for the whole process; its folder holds the record.
    func captureCrashes(in directory: String, configuration: Configuration, logger: SDKLogger) {
        #if os(Linux) && canImport(Glibc)
        let recordPath = directory + "/" + CrashRecordLocation.fileName
        if let report = FatalSignalRecorder.takeReport(recordPath: recordPath) {
            // The opt-out discards a saved crash: the record is already gone, nothing is sent.
            if intake.isEnabled {
                record("app_crashed", properties: report.properties(redaction: configuration.crashReasonRedaction), at: nil, eventID: nil, deviceID: nil, origin: .autocaptured)
                logger.info("Sending the crash the last run recorded (\(report.exceptionName)).")
            }
        }
        guard configuration.autocapture.contains(.crashes), intake.isEnabled else { return }
        try? hooks.fileSystem.createDirectory(directory, mode: 0o700)
        if !FatalSignalRecorder.install(recordPath: recordPath) {
            logger.debug("Crash capture is already installed by another client in this process; that client records crashes.")
        }
        #endif
    }
}
