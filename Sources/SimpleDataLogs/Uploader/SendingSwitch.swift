/// The offline switch (``SimpleDataLogsClient/setOffline(_:)``): while it is on, journaling goes
/// on and the uploader starts no request. Shared by the client, which flips it from any thread,
/// and the uploader, which reads it before each pass and before each request.
final class SendingSwitch: Sendable {
    private let offline = Locked(false)

    /// Whether sending is paused.
    var isOffline: Bool { offline.withLock { $0 } }

    /// Sets the switch.
    /// - Returns: Whether it changed.
    func set(offline value: Bool) -> Bool {
        offline.withLock { offline in
            defer { offline = value }
            return offline != value
        }
    }
}
