// Apple-only lifecycle adapters. Linux CI type-checks them against stand-ins of UIKit and AppKit
// (scripts/check-apple-code.py); the hosted macOS workflow builds them against Apple's SDK. Each
// one only maps platform notifications to `respond(to:)`, whose rules Linux tests exercise.
//
// They are attached only in an app (ProcessKind), but they are linked into every process that
// links the SDK, app extensions included. So they never name `UIApplication.shared` or
// `NSApplication.shared`: Xcode refuses to build code that names the former into an extension
// ("'shared' is unavailable in application extensions"). The application object is looked up by
// name (`sharedApplication`, key-value coding), and only once ProcessKind has said "an app".
// scripts/check-apple-code.py fails on any Apple-only line that names either.
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// iOS: maps the app's notifications to ``LifecycleMoment``s; what each one does is decided in
/// platform-neutral code (``LifecycleResponse``). The state at attach is reported too, so a
/// client configured after launch does not call every event `background` until the next
/// activation.
@MainActor
enum AppleLifecycle {
    static func attach(_ client: SimpleDataLogsClient) {
        if let application = sharedApplication() {
            client.respond(to: application.applicationState == .active ? .becameActive : .resignedActive)
        }
        let center = NotificationCenter.default
        // The observers live as long as the process, so their tokens are not kept.
        _ = center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
            client.respond(to: .becameActive)
        }
        _ = center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in
            client.respond(to: .enteredBackground, beginBackgroundTime: { BackgroundTime.begin() })
        }
        _ = center.addObserver(forName: UIApplication.willTerminateNotification, object: nil, queue: .main) { _ in
            client.respond(to: .willTerminate)
        }
    }

    /// The app's `UIApplication`, looked up by name (see the top of this file); `nil` where
    /// there is none, as in an extension.
    static func sharedApplication() -> UIApplication? {
        UIApplication.value(forKey: "sharedApplication") as? UIApplication
    }
}

/// An iOS background task, as the one thing ``LifecycleResponse/Send/inBackground(limit:)``
/// needs from UIKit: begun on the main actor, and ended exactly once (by the send, or by the
/// system's expiry), whichever of the begin and the end comes first.
enum BackgroundTime {
    private struct State: Sendable {
        /// The task's raw identifier once begun (only an `Int` crosses threads).
        var raw: Int?
        var ended = false
    }

    /// Begins a background task; returns what ends it.
    static func begin() -> @Sendable () -> Void {
        let state = Locked(State())
        @Sendable func end() {
            let raw: Int? = state.withLock { state in
                defer { state.ended = true; state.raw = nil }
                return state.ended ? nil : state.raw
            }
            guard let raw else { return }
            Task { @MainActor in AppleLifecycle.sharedApplication()?.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: raw)) }
        }
        Task { @MainActor in
            guard let application = AppleLifecycle.sharedApplication() else {
                end()
                return
            }
            let task = application.beginBackgroundTask(withName: "SimpleDataLogs flush") { end() }
            // The send may have ended before the task began: end it at once then.
            let endedAlready: Bool = state.withLock { state in
                if !state.ended { state.raw = task.rawValue }
                return state.ended
            }
            if endedAlready { application.endBackgroundTask(task) }
        }
        return end
    }
}
#elseif canImport(AppKit)
import AppKit

/// macOS: maps the app's notifications to ``LifecycleMoment``s (activation, resignation, sleep,
/// termination), and reports recent keyboard or mouse input; the state at attach is reported too.
@MainActor
enum AppleLifecycle {
    static func attach(_ client: SimpleDataLogsClient) {
        // Looked up by name (see the top of this file); ProcessKind attached us only in an app.
        if let application = NSApplication.value(forKey: "sharedApplication") as? NSApplication {
            client.respond(to: application.isActive ? .becameActive : .resignedActive)
        }
        let center = NotificationCenter.default
        // The observers live as long as the process, so their tokens are not kept.
        _ = center.addObserver(forName: NSApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
            client.respond(to: .becameActive)
        }
        _ = center.addObserver(forName: NSApplication.didResignActiveNotification, object: nil, queue: .main) { _ in
            client.respond(to: .resignedActive)
        }
        _ = center.addObserver(forName: NSApplication.willTerminateNotification, object: nil, queue: .main) { _ in
            client.respond(to: .willTerminate)
        }
        _ = NSWorkspace.shared.notificationCenter.addObserver(forName: NSWorkspace.willSleepNotification, object: nil, queue: .main) { _ in
            client.respond(to: .willSleep)
        }
        InputIdleWatcher.start(client)
    }
}

/// Reports keyboard and mouse input (a menu-bar hotkey counts) every few seconds, from the
/// system's idle time, so the 10-second input rule can see it without a per-event query.
@MainActor
enum InputIdleWatcher {
    private static var timer: Timer?

    static func start(_ client: SimpleDataLogsClient) {
        timer = Timer.scheduledTimer(withTimeInterval: 2, repeats: true) { _ in
            let idle = CGEventSource.secondsSinceLastEventType(.combinedSessionState, eventType: CGEventType(rawValue: ~0)!)
            if idle < 2 { client.reportActivity(.userInput) }
        }
    }
}
#endif
