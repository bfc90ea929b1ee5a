// Apple-only lifecycle adapters. They cannot be compiled on the Linux machines the SDK is built
// and tested on; DESIGN.md ("Uncompiled adapters") lists them. Each one only maps platform
// callbacks to the platform-neutral calls the Linux tests exercise: `reportActivity`, `flush`,
// and the bounded termination drain.
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// iOS: activity from the app's foreground state; a flush, under a background task of at most
/// 20 seconds, when the app moves to the background; the termination hold.
@MainActor
enum AppleLifecycle {
    static func attach(_ client: SimpleDataLogsClient) {
        let center = NotificationCenter.default
        center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
            client.reportActivity(.foreground)
        }
        center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in
            client.reportActivity(.background)
            Task { @MainActor in flushInBackground(client) }
        }
        center.addObserver(forName: UIApplication.willTerminateNotification, object: nil, queue: .main) { _ in
            TerminationHold.hold(client)
        }
    }

    /// Asks for background time for the send, and ends it after at most 20 seconds.
    private static func flushInBackground(_ client: SimpleDataLogsClient) {
        let application = UIApplication.shared
        var task = UIBackgroundTaskIdentifier.invalid
        task = application.beginBackgroundTask(withName: "SimpleDataLogs flush") {
            application.endBackgroundTask(task)
        }
        let identifier = task
        Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await client.flush() }
                group.addTask { try? await Task.sleep(for: .seconds(20)) }
                await group.next()
                group.cancelAll()
            }
            await MainActor.run { application.endBackgroundTask(identifier) }
        }
    }
}
#elseif canImport(AppKit)
import AppKit

/// macOS: activity from activation and from recent keyboard or mouse input; a flush when the
/// Mac goes to sleep; the termination hold.
@MainActor
enum AppleLifecycle {
    static func attach(_ client: SimpleDataLogsClient) {
        let center = NotificationCenter.default
        center.addObserver(forName: NSApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
            client.reportActivity(.foreground)
        }
        center.addObserver(forName: NSApplication.didResignActiveNotification, object: nil, queue: .main) { _ in
            client.reportActivity(.background)
        }
        center.addObserver(forName: NSApplication.willTerminateNotification, object: nil, queue: .main) { _ in
            TerminationHold.hold(client)
        }
        NSWorkspace.shared.notificationCenter.addObserver(forName: NSWorkspace.willSleepNotification, object: nil, queue: .main) { _ in
            Task { await client.flush() }
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

#if canImport(UIKit) || canImport(AppKit)
/// The one place the SDK blocks a thread it does not own (DESIGN.md, "Lifecycle"): once
/// termination begins, the main thread is held until every queued event is in the journal (at
/// most 1 s), then the quit is held until the send ends or 2 s have passed since termination
/// began. Before termination, `track` never waits.
enum TerminationHold {
    static func hold(_ client: SimpleDataLogsClient) {
        let began = DispatchTime.now()
        client.drainSynchronously(timeout: .seconds(1))
        let sent = DispatchSemaphore(value: 0)
        Task.detached {
            await client.flush()
            sent.signal()
        }
        _ = sent.wait(timeout: began + .seconds(2))
    }
}
#endif
