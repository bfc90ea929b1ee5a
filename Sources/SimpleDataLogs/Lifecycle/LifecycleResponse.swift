/// A moment in an app's life that the SDK answers. The Apple adapters only map the platform's
/// notifications to these; what each one does is decided here, in code Linux compiles and tests.
package enum LifecycleMoment: Sendable, CaseIterable {
    /// The app came to the front (iOS `didBecomeActive`, macOS `didBecomeActive`), or was already
    /// in front when the SDK attached.
    case becameActive
    /// The app left the front but keeps running (macOS `didResignActive`), or was not in front
    /// when the SDK attached.
    case resignedActive
    /// iOS `didEnterBackground`: the app may be suspended at any moment.
    case enteredBackground
    /// macOS `willSleep`: the Mac may lose power before it wakes.
    case willSleep
    /// `willTerminate`: the process ends as soon as the handler returns.
    case willTerminate
}

/// What the SDK does at a ``LifecycleMoment``: a pure table, so the rules (the 20-second
/// background send, the 1 s + 2 s termination hold) are tested on Linux.
struct LifecycleResponse: Sendable, Equatable {
    /// How the outbox is sent at the moment.
    enum Send: Sendable, Equatable {
        /// A flush that nobody waits for.
        case plain
        /// A flush under background time the platform grants (an iOS background task), given back
        /// when the send ends or after `limit` on the client's clock, whichever comes first.
        case inBackground(limit: Duration)
        /// The termination hold, the one place the SDK blocks a thread it does not own: the
        /// calling thread is held until the queue is in the journal (at most `drain`), then until
        /// the send ends or `total` has passed since the moment.
        case holdingTermination(drain: Duration, total: Duration)
    }

    /// The activity to report, if any.
    var activity: ActivityEvent?
    /// The send, if any.
    var send: Send?

    /// The background time iOS grants a send.
    static let backgroundSendLimit: Duration = .seconds(20)
    /// How long termination waits for the queue to reach the journal.
    static let terminationDrain: Duration = .seconds(1)
    /// How long termination waits in all, from its start.
    static let terminationTotal: Duration = .seconds(2)

    /// The response to `moment`.
    static func to(_ moment: LifecycleMoment) -> LifecycleResponse {
        switch moment {
        case .becameActive:
            return LifecycleResponse(activity: .foreground, send: nil)
        case .resignedActive:
            return LifecycleResponse(activity: .background, send: nil)
        case .enteredBackground:
            return LifecycleResponse(activity: .background, send: .inBackground(limit: backgroundSendLimit))
        case .willSleep:
            return LifecycleResponse(activity: nil, send: .plain)
        case .willTerminate:
            return LifecycleResponse(activity: nil, send: .holdingTermination(drain: terminationDrain, total: terminationTotal))
        }
    }
}
