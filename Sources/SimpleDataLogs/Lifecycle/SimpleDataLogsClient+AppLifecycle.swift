import Dispatch

extension SimpleDataLogsClient {
    /// Whether `configure` attached the app lifecycle (decided by ``ProcessKind``): `false`
    /// before it, and in a process that is not an app.
    package var attachesAppLifecycle: Bool { pipeline != nil && processKind.attachesAppLifecycle }

    /// Observes the app's lifecycle, in an app only: a tool or a server on a Mac has no
    /// `NSApplication` running (observing one would start AppKit in it), and an extension's
    /// host is not its own.
    func attachAppLifecycle(logger: SDKLogger) {
        guard processKind.attachesAppLifecycle else {
            logger.debug("Running in \(processKind): the app lifecycle is not observed; the exit hook and shutdown() send what is left.")
            return
        }
        #if canImport(UIKit) || canImport(AppKit)
        Task { @MainActor in AppleLifecycle.attach(self) }
        #endif
    }

    /// Answers a moment of the app's life (``LifecycleResponse``): reports the activity, and
    /// sends as the moment allows. Called by the Apple adapters on the main thread; platform-
    /// neutral so that Linux tests drive it.
    /// - Parameters:
    ///   - moment: What happened.
    ///   - beginBackgroundTime: Asks the platform for time to finish a send (an iOS background
    ///     task) and returns what gives it back; called at most once, and what it returns is
    ///     called exactly once. `nil` where the platform has no such thing.
    package func respond(to moment: LifecycleMoment, beginBackgroundTime: (@Sendable () -> @Sendable () -> Void)? = nil) {
        let response = LifecycleResponse.to(moment)
        if let activity = response.activity { reportActivity(activity) }
        switch response.send {
        case nil:
            break
        case .plain:
            Task { await flush() }
        case .inBackground(let limit):
            let giveBack = beginBackgroundTime?()
            let clock = clock
            Task {
                _ = await Deadline.run(limit, on: clock) { await self.flush() }
                giveBack?()
            }
        case .holdingTermination(let drain, let total):
            holdTermination(drain: drain, total: total)
        }
    }

    /// The termination hold (DESIGN.md, "Lifecycle"): blocks the calling thread, which the
    /// process is ending anyway, on real time, since the system's own deadline is real time.
    @available(*, noasync, message: "Blocks the calling thread: only for the terminating thread.")
    private func holdTermination(drain: Duration, total: Duration) {
        let deadline = DispatchTime.after(total)
        drainSynchronously(timeout: drain)
        let sent = DispatchSemaphore(value: 0)
        Task.detached { [self] in
            await flush()
            sent.signal()
        }
        _ = sent.wait(timeout: deadline)
    }
}
