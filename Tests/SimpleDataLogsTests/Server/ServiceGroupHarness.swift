import SimpleDataLogs

// A small reproduction of swift-service-lifecycle's semantics (read from its source,
// `Sources/ServiceLifecycle/ServiceGroup.swift` and `GracefulShutdown.swift`, 2.11), so that the
// integration the server article documents is tested against the behaviour that broke it, without
// the package (the SDK takes no dependencies, and no package can be fetched here). The names and
// signatures are service-lifecycle's, so the article's code compiles here unchanged.
//
// What is reproduced, because the SDK's integration depends on it:
// - each service runs in a child task with its own graceful-shutdown trigger, bound in a
//   task-local, so `gracefulShutdown()` inside the service (and its child tasks) sees it;
// - graceful shutdown signals the services in reverse order of the array, one at a time, and
//   waits for each `run()` to return before signalling the next;
// - no task is cancelled on that path, and there is no time limit by default;
// - a service that returns before it is signalled ends the group (`.cancelGroup`, the default).
// Signals are not caught: the tests call `triggerGracefulShutdown()`, as SIGTERM would.

/// service-lifecycle's `Service`.
protocol Service: Sendable {
    func run() async throws
}

/// Stands in for `UnixSignal`; the harness never installs a handler.
enum UnixSignal: Sendable { case sigterm, sigint }

/// Stands in for swift-log's `Logger`.
struct Logger: Sendable { var label: String }

/// One service's graceful-shutdown trigger (service-lifecycle's `GracefulShutdownManager`).
final class GracefulShutdownTrigger: Sendable {
    private struct State: ParksWaiters {
        var triggered = false
        var waiters = Waiters()
    }

    private let state = Locked(State())

    @TaskLocal static var current: GracefulShutdownTrigger?

    var isTriggered: Bool { state.withLock { $0.triggered } }

    func trigger() {
        let waiters = state.withLock { state in
            state.triggered = true
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when triggered, or when the calling task is cancelled.
    func wait() async {
        await state.park { $0.triggered }
    }
}

/// service-lifecycle's `gracefulShutdown()`: returns when the service's graceful shutdown is
/// triggered; throws `CancellationError` when the task is cancelled first. Outside a group it
/// waits for cancellation.
func gracefulShutdown() async throws {
    if let trigger = GracefulShutdownTrigger.current {
        await trigger.wait()
        if trigger.isTriggered { return }
    } else {
        await untilCancelled()
    }
    throw CancellationError()
}

/// service-lifecycle's `cancelWhenGracefulShutdown(_:)`: runs `operation` in a child task and
/// cancels it at graceful shutdown.
func cancelWhenGracefulShutdown<T: Sendable>(_ operation: @Sendable @escaping () async throws -> T) async rethrows -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try? await gracefulShutdown()
            return nil
        }
        var result: T?
        while let next = try await group.next() {
            if let value = next {
                result = value
                group.cancelAll()
            } else {
                group.cancelAll()
            }
        }
        // The operation always produces a value or throws; the shutdown child returns nil.
        return result!
    }
}

/// service-lifecycle's `ServiceGroup`, reduced to what the SDK's integration relies on.
actor ServiceGroup {
    enum Failure: Error { case serviceFinishedUnexpectedly(index: Int) }

    private let services: [any Service]
    private let triggers: [GracefulShutdownTrigger]
    private var shuttingDown = false
    private var finished: [Int: CheckedContinuation<Void, Never>] = [:]
    private var done: Set<Int> = []

    init(services: [any Service], gracefulShutdownSignals: [UnixSignal] = [], logger: Logger) {
        self.services = services
        triggers = services.map { _ in GracefulShutdownTrigger() }
    }

    /// Runs every service until all have returned after a graceful shutdown.
    func run() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, service) in services.enumerated() {
                let trigger = triggers[index]
                group.addTask {
                    try await GracefulShutdownTrigger.$current.withValue(trigger) { try await service.run() }
                    return index
                }
            }
            for _ in services.indices {
                guard let index = try await group.next() else { break }
                done.insert(index)
                if let waiter = finished.removeValue(forKey: index) { waiter.resume() }
                if !shuttingDown || !triggers[index].isTriggered {
                    group.cancelAll()
                    throw Failure.serviceFinishedUnexpectedly(index: index)
                }
            }
        }
    }

    /// What SIGTERM does in `gracefulShutdownSignals`: signal each service in reverse order and
    /// wait for it to return before the next. Never cancels, never gives up.
    func triggerGracefulShutdown() async {
        shuttingDown = true
        for index in services.indices.reversed() {
            triggers[index].trigger()
            if !done.contains(index) {
                await withCheckedContinuation { finished[index] = $0 }
            }
        }
    }
}
