extension SimpleDataLogsClient {
    /// Forgets who was using the app, for a logout: ends the open session, clears the default
    /// properties, and clears the device id or sets `deviceID`; with
    /// ``Configuration/usesInstallID`` it also replaces the install id.
    ///
    /// Applied in order with `track` calls, like ``setDeviceID(_:)``: every event tracked before
    /// the call carries the old identity, and no event after it does. The session of the old
    /// identity ends at the call (its `session_end` is stamped at its last activity); the next
    /// activity starts a session for the new one.
    /// - Parameter deviceID: The next user's anonymous id, or `nil` for none.
    public func reset(deviceID: String? = nil) {
        intake.enqueue(.reset(deviceID))
    }

    /// The offline switch: while `true`, events are journaled as ever and nothing is sent; back to
    /// `false`, sending resumes at once with what waited on disk. For airplane-mode toggles, a
    /// metered network, or a server draining before maintenance.
    ///
    /// Not persisted, and it may be set before ``configure(_:)``. While offline, `flush()`
    /// journals and seals but sends nothing, and `shutdown()` keeps everything on disk for the
    /// next start, at once. A request already in flight is answered; no new one starts.
    /// - Parameter offline: Whether to pause sending.
    public func setOffline(_ offline: Bool) {
        guard sending.set(offline: offline) else { return }
        if offline {
            logger.info("Offline: sending is paused; events are journaled and wait on disk until setOffline(false).")
        } else {
            logger.info("Online again: sending resumes.")
            pipeline?.wakeUploader()
        }
    }

    /// Whether sending is paused by ``setOffline(_:)``.
    public var isOffline: Bool { sending.isOffline }
}
