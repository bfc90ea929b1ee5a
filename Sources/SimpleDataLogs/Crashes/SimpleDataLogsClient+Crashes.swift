extension SimpleDataLogsClient {
    /// At `configure`: sends the crashes earlier runs recorded in this folder (as `app_crashed`,
    /// through the pipeline so they get the device id), then, with `.crashes`, installs the
    /// process-wide recorder for this run.
    ///
    /// Runs on the caller's thread, once, because the recorder's alternate signal stack belongs
    /// to the installing thread (usually the main thread, which is where stack overflows happen).
    /// The blocking work is a folder listing and a few small file reads: a deliberate exception
    /// at launch. The first client to install records for the whole process; its folder holds
    /// the record.
    ///
    /// A record is deleted only after its event is on disk: the pipeline carries it behind the
    /// event to the outbox (``IntakeItem/crashRecordHandedOver(_:)``), which deletes it then.
    /// Only the records of this client's key and endpoint (`owner`), or of none, are sent.
    func captureCrashes(in directory: String, configuration: Configuration, owner: AreaOwner?, formerOwners: [AreaOwner], logger: SDKLogger) {
        let fileSystem = faults.fileSystem.confined(to: directory)
        // A folder another user can write to could hold a planted record: the outbox refuses the
        // folder (and says so once), and so does crash capture.
        guard OutboxActor.distrust(of: directory) == nil else { return }
        for leftover in CrashRecordFiles.takeLeftovers(in: directory, owner: owner, formerOwners: formerOwners, fileSystem: fileSystem) {
            // The opt-out discards a saved crash: nothing is sent.
            guard intake.isEnabled, let report = Self.crashReport(fromRecord: leftover.bytes) else {
                leftover.file.discard()
                continue
            }
            let accepted = record(
                "app_crashed", properties: report.properties(redaction: configuration.crashReasonRedaction),
                at: nil, eventID: leftover.file.eventID, deviceID: nil, origin: .autocaptured
            )
            if accepted {
                intake.enqueue(.crashRecordHandedOver(leftover.file))
                logger.info("Sending the crash an earlier run recorded (\(report.exceptionName)).")
            } else {
                leftover.file.release()
            }
        }
        guard configuration.autocapture.contains(.crashes), intake.isEnabled else { return }
        installCrashRecorder(in: directory, owner: owner, fileSystem: fileSystem, logger: logger)
    }

    /// Creates this run's record file and installs the recorders writing to it: fatal signals
    /// everywhere, and on Apple platforms uncaught `NSException`s into the same record.
    private func installCrashRecorder(in directory: String, owner: AreaOwner?, fileSystem: any FileSystem, logger: SDKLogger) {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        let file: CrashRecordFile
        do {
            try fileSystem.createDirectory(directory, mode: 0o700)
            file = try CrashRecordFiles.create(in: directory, owner: owner, fileSystem: fileSystem)
        } catch {
            logger.warning("Crash capture is off for this run: the storage folder refused its record file (\(error)).")
            return
        }
        guard FatalSignalRecorder.install(recordDescriptor: file.descriptor) else {
            file.discard()
            logger.debug("Crash capture is already installed by another client in this process; that client records crashes.")
            return
        }
        // For the outbox to rename with a rotated key.
        crashRecordPath.withLock { $0 = file.path }
        #if canImport(ObjectiveC) && canImport(Darwin)
        UncaughtExceptionRecorder.install()
        #endif
        #endif
    }

    /// The platform's reading of a record (see ``FatalSignalRecorder/report(fromRecord:)``).
    private static func crashReport(fromRecord bytes: [UInt8]) -> CrashReport? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        FatalSignalRecorder.report(fromRecord: bytes)
        #else
        CrashRecord.parse(bytes).map { CrashReport(record: $0, symbolizer: CrashSymbolizer(currentModules: [], symbolName: { _ in nil })) }
        #endif
    }
}
